import { Injectable, Logger } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { performance } from 'node:perf_hooks';
import { GatewayIdentity } from '../../chain/gateway-identity';
import { KeyBalance } from '../../chain/key-balance/key-balance';
import { S3BackendError } from '../s3-backend';
import { groupFailedError, groupRefusal, TapeWriteFailedError } from './chain-write-errors';
import {
  GroupCommitStats,
  GroupCommitTally,
  PlannedVersion,
  Round,
  RoundSignals,
  TIMING_WEIGHT,
} from './commit-round';
import { GroupPublish } from './group-publish';
import { ObjectOp, OpOutcome, WrittenObject } from './object-ops';
import { WriteQueue } from './write-queue';

/** Writes one Publish carries at most; the rest form the next group. */
const MAX_GROUP_OPS = 2000;
/** How long a group waits, after its writers were answered, for their next writes (WriteQueue). */
const REFILL_WAIT_MS = 60;
/** Groups over which a tape's writers in flight at once are counted (their most). */
const LOADS_KEPT = 16;
/** Event-loop utilization above which groups are not planned beside a Publish in flight. */
const BUSY_UTILIZATION = 0.85;

interface Waiting {
  op: ObjectOp;
  resolve: (written: WrittenObject | undefined) => void;
  reject: (error: unknown) => void;
}

interface Group {
  pending: WriteQueue<Waiting>;
  running: boolean;
}

/**
 * Group commit of S3 writes per tape (docs/s3.md, "Writes: group commit"). Every write's bytes
 * are in the gateway's store before it joins. Groups are pipelined: while a group's Publish is
 * certified, sent and confirmed, the next group is planned, built and stored on top of that
 * not-yet-confirmed version, and its Publish goes as soon as the one before is confirmed. A
 * tape still has at most one Publish in flight, each with compare-and-swap on the version it was
 * planned on; when the version a group was planned on is not the one the chain then holds (the
 * group before failed, another writer gateway or a `tape deploy` won), the group plans its
 * writes again on the current version. Each write is answered once its version is confirmed,
 * or refused with its group's error: nothing acknowledged is lost.
 *
 * This class is the queue: which writes form a group, when the next group starts, how its
 * writes are answered. Planning and publishing one group is GroupPublish (group-publish.ts).
 */
@Injectable()
export class VersionCommitGroups {
  private readonly logger = new Logger('s3-group-commit');
  private readonly groups = new Map<string, Group>();
  private readonly tally = new GroupCommitTally();
  private loopSample = performance.eventLoopUtilization();
  private utilization = 0;

  constructor(
    private readonly publishStep: GroupPublish,
    private readonly identity: GatewayIdentity,
    private readonly balance: KeyBalance,
  ) {}

  get stats(): GroupCommitStats {
    return this.tally.stats;
  }

  /** Joins the tape's next group; resolves once the version holding the write is confirmed. */
  submit(tape: PublicKey, op: ObjectOp): Promise<WrittenObject | undefined> {
    const key = tape.toBase58();
    let group = this.groups.get(key);
    if (!group) {
      group = { pending: new WriteQueue<Waiting>(), running: false };
      this.groups.set(key, group);
    }
    const joined = group;
    return new Promise((resolve, reject) => {
      joined.pending.push({ op, resolve, reject });
      if (!joined.running) void this.drain(key, tape, joined);
    });
  }

  /**
   * Starts the next group once writes wait, planned on the group before it while that group's
   * Publish is on its way, so that planning overlaps the one Publish in flight (at most one
   * group waits, planned, for the group publishing). It starts as late as it can and still be
   * planned when that Publish is confirmed (the moving averages of both), or at once when every
   * writer is back (as many writes wait or publish as were lately in the gateway at once: a
   * client's requests in flight). With no group on its way it waits at most the refill wait
   * for them.
   */
  private async drain(key: string, tape: PublicKey, group: Group): Promise<void> {
    group.running = true;
    let last: Round | undefined;
    let onItsWay = false;
    const loads: number[] = [];
    const writers = () => Math.max(1, ...loads);
    try {
      for (;;) {
        // A busy gateway gains nothing by planning beside a Publish, only smaller groups.
        if (onItsWay && this.busy()) await last!.done;
        if (onItsWay) {
          await last!.publishing;
          const slack =
            (last!.publishingAt ?? Date.now()) +
            this.tally.timing.publishMs -
            this.tally.timing.planMs -
            Date.now();
          await group.pending.waitFor(writers() - last!.size, {
            until: last!.done,
            timeoutMs: Math.max(0, slack),
          });
        } else if (last !== undefined) {
          await group.pending.waitFor(writers(), { timeoutMs: REFILL_WAIT_MS });
          last = undefined;
        }
        if (group.pending.length === 0) {
          if (onItsWay) {
            await group.pending.waitFor(1, { until: last!.done });
            continue;
          }
          break;
        }
        const batch = group.pending.take(MAX_GROUP_OPS);
        loads.push(batch.length + (onItsWay ? last!.size : 0));
        if (loads.length > LOADS_KEPT) loads.shift();
        const round = this.round(tape, batch, onItsWay ? last : undefined);
        last = round;
        onItsWay = true;
        void round.done.then(() => {
          if (last === round) onItsWay = false;
        });
        await round.planned;
      }
    } finally {
      group.running = false;
      if (group.pending.length === 0) this.groups.delete(key);
    }
  }

  /** One group: planned (on `before`'s version while it is on its way), published, answered. */
  private round(tape: PublicKey, batch: Waiting[], before: Round | undefined): Round {
    let planned!: (version: PlannedVersion | undefined) => void;
    let publishing!: () => void;
    const round: Round = {
      planned: new Promise((resolve) => (planned = resolve)),
      publishing: new Promise((resolve) => (publishing = resolve)),
      done: Promise.resolve(),
      size: batch.length,
    };
    const signals: RoundSignals = {
      planned,
      publishing: () => {
        round.publishingAt ??= Date.now();
        publishing();
      },
      published: (root) => (round.published = root),
    };
    round.done = this.commit(tape, batch, before, signals).finally(() => {
      signals.planned(undefined);
      signals.publishing();
    });
    return round;
  }

  private async commit(
    tape: PublicKey,
    batch: Waiting[],
    before: Round | undefined,
    signals: RoundSignals,
  ): Promise<void> {
    let outcomes: OpOutcome[];
    try {
      outcomes = await this.publishStep.publish(
        tape,
        batch.map((w) => w.op),
        before,
        signals,
        this.tally,
      );
    } catch (error) {
      // Never throws: every write is answered, and the next group's wait for this one ends.
      const refusal = await groupRefusal(error, this.identity.publicKey.toBase58(), (e) =>
        this.balance.explain(e),
      ).catch(() => groupFailedError(error));
      if (!(refusal instanceof S3BackendError) || refusal instanceof TapeWriteFailedError) {
        this.logger.warn({
          msg: 'group commit failed',
          tape: tape.toBase58(),
          error: String(error),
        });
      }
      for (const w of batch) w.reject(refusal);
      return;
    }
    batch.forEach((w, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) w.resolve(outcome.written);
      else w.reject(outcome.error);
    });
  }

  /**
   * Whether the event loop was busy most of the time lately (its utilization's moving average,
   * sampled at each group): then planning the next group beside the Publish in flight only
   * slows that Publish, and the next group waits for it instead (one group of all the writers
   * rather than two halves, each costing a round).
   */
  protected busy(): boolean {
    const sample = performance.eventLoopUtilization(this.loopSample);
    this.loopSample = performance.eventLoopUtilization();
    this.utilization += TIMING_WEIGHT * (sample.utilization - this.utilization);
    return this.utilization >= BUSY_UTILIZATION;
  }
}
