import { Injectable, Logger } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { Readable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { VersionConflictError } from '../../chain/chain-error';
import { ChainReader } from '../../chain/chain-reader';
import { GatewayIdentity } from '../../chain/gateway-identity';
import { KeyBalance } from '../../chain/key-balance/key-balance';
import { currentVersion } from '../../chain/tape-history';
import { ApiError } from '../../http/api-error';
import { ObjectReader } from '../../tracks/object-reader';
import { TrackStore } from '../../tracks/track-store';
import { buildVersion, BuiltVersion } from '../../versions/version-builder';
import { ChangedFile, planVersion, VersionPlan } from '../../versions/version-planner';
import { RulesError } from '../../versions/rules/site-rules';
import {
  S3BackendAccessDeniedError,
  S3BackendError,
  S3BackendInvalidArgumentError,
  S3BackendInsufficientCapacityError,
  S3BackendSlowDownError,
  S3BackendTapeExpiredError,
  S3BackendUnpaidError,
} from '../s3-backend';
import {
  chainWriteError,
  groupFailedError,
  notDelegatedMessage,
  TapeWriteFailedError,
} from './chain-write-errors';
import { applyObjectOps, ObjectOp, OpOutcome, WrittenObject } from './object-ops';
import { PlanBase, TapeVersions } from './tape-versions';
import { VersionPublishing } from './version-publishing';
import { WriteQueue } from './write-queue';

/** Writes one Publish carries at most; the rest form the next group. */
const MAX_GROUP_OPS = 2000;
/** Rebases after lost compare-and-swaps before the group gives up (503 SlowDown, retried). */
const MAX_ATTEMPTS = 12;
/** How long a group waits, after its writers were answered, for their next writes (WriteQueue). */
const REFILL_WAIT_MS = 60;

interface Waiting {
  op: ObjectOp;
  resolve: (written: WrittenObject | undefined) => void;
  reject: (error: unknown) => void;
}

interface Group {
  pending: WriteQueue<Waiting>;
  running: boolean;
}

/** Counters for tests and metrics: versions published and writes they carried. */
export interface GroupCommitStats {
  publishes: number;
  writes: number;
  rebases: number;
  /** Groups planned on the version of the group before them while its Publish was in flight. */
  pipelined: number;
}

/** A version planned, built and stored, as the next group may plan on it before it is confirmed. */
interface PlannedVersion {
  /**
   * The tape's sequence (the compare-and-swap counter) and latest version number once it is
   * published, and its root.
   */
  sequence: number;
  latestVersion: number;
  root: Buffer;
  base: PlanBase;
}

/** A group on its way: its version once planned (undefined: nothing to plan on), and its end. */
interface Round {
  planned: Promise<PlannedVersion | undefined>;
  /** Resolves once its Publish is being certified and sent (or the group ended without one). */
  publishing: Promise<void>;
  /** When `publishing` resolved (ms since the epoch). */
  publishingAt?: number;
  /** The root it published, once confirmed. */
  published?: Buffer;
  /** Its writes. */
  size: number;
  /** Resolves once the group's writes are answered (whatever the outcome). */
  done: Promise<void>;
}

/** What a group tells the next one while on its way. */
interface RoundSignals {
  planned: (version: PlannedVersion | undefined) => void;
  publishing: () => void;
  published: (root: Buffer) => void;
}

/** Groups over which a tape's writers in flight at once are counted (their most). */
const LOADS_KEPT = 16;
/** Event-loop utilization above which groups are not planned beside a Publish in flight. */
const BUSY_UTILIZATION = 0.85;
/** A moving average's weight for the newest sample. */
const TIMING_WEIGHT = 0.3;

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
 */
@Injectable()
export class VersionCommitGroups {
  private readonly logger = new Logger('s3-group-commit');
  private readonly groups = new Map<string, Group>();
  readonly stats: GroupCommitStats = { publishes: 0, writes: 0, rebases: 0, pipelined: 0 };
  /** Moving averages (ms): planning, building and storing a group; certifying and publishing it. */
  private readonly timing = { planMs: 20, publishMs: 40 };
  private loopSample = performance.eventLoopUtilization();
  private utilization = 0;

  constructor(
    private readonly chain: ChainReader,
    private readonly versions: TapeVersions,
    private readonly store: TrackStore,
    private readonly reader: ObjectReader,
    private readonly publisher: VersionPublishing,
    private readonly identity: GatewayIdentity,
    private readonly balance: KeyBalance,
  ) {}

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
            this.timing.publishMs -
            this.timing.planMs -
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
      outcomes = await this.publishGroup(
        tape,
        batch.map((w) => w.op),
        before,
        signals,
      );
    } catch (error) {
      // Never throws: every write is answered, and the next group's wait for this one ends.
      const refusal = await this.s3Error(error).catch(() => groupFailedError(error));
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
   * Plans the writes (first on `before`'s planned version when there is one), then publishes
   * once `before` is answered, provided the chain's current version is still the one planned
   * on; otherwise, and after a lost compare-and-swap, plans again on the current version.
   */
  private async publishGroup(
    tape: PublicKey,
    ops: ObjectOp[],
    before: Round | undefined,
    signals: RoundSignals,
  ): Promise<OpOutcome[]> {
    let onTopOf = before === undefined ? undefined : await before.planned;
    for (let attempt = 1; ; attempt++) {
      let on: PlannedVersion;
      if (onTopOf !== undefined) {
        on = onTopOf;
        this.stats.pipelined++;
      } else {
        const record = await this.chain.getTape(tape);
        if (!record) throw new S3BackendAccessDeniedError('the tape no longer exists');
        on = {
          sequence: record.sequence,
          latestVersion: record.latestVersion,
          root: currentVersion(record)?.root ?? Buffer.alloc(32),
          base: await this.versions.entries(tape, record),
        };
      }
      const { change, outcomes } = applyObjectOps(
        on.base.entries,
        ops,
        Math.floor(Date.now() / 1000),
      );
      if (change.put.length === 0 && (change.remove ?? []).length === 0) {
        signals.planned(onTopOf);
        // Nothing to publish, but the answers may not come before the version they read is.
        if (onTopOf !== undefined && !(await this.stillOn(tape, before!, onTopOf))) {
          onTopOf = undefined;
          continue;
        }
        return outcomes;
      }
      const planStarted = Date.now();
      const plan = await planVersion(on.base, change, (file) => this.readSmall(file, ops));
      const built = buildVersion(plan.entries, plan.settings, plan.rules);
      await this.storeVersion(tape, on.latestVersion, plan, built, on.base.nodes);
      this.average('planMs', Date.now() - planStarted);
      const base: PlanBase = {
        ...plan,
        nodes: new Set(built.nodes.map((n) => n.commitment.toString('hex'))),
      };
      if (attempt === 1)
        signals.planned({
          sequence: on.sequence + 1,
          latestVersion: on.latestVersion + 1,
          root: built.rootCommitment,
          base,
        });
      if (onTopOf !== undefined) {
        const still = await this.stillOn(tape, before!, onTopOf);
        onTopOf = undefined;
        // The group before failed, or another writer published meanwhile: plan again.
        if (!still) {
          this.stats.rebases++;
          continue;
        }
      }
      signals.publishing();
      const publishStarted = Date.now();
      try {
        await this.publisher.publishOwn(tape, built.rootCommitment, on.sequence);
        this.average('publishMs', Date.now() - publishStarted);
      } catch (error) {
        if (!this.publisher.isConflict(error) || attempt >= MAX_ATTEMPTS) throw error;
        // A Publish that landed although its answer was lost (a resend) is a success.
        const now = await this.chain.getTape(tape);
        if (!(now && currentVersion(now)?.root.equals(built.rootCommitment))) {
          this.stats.rebases++;
          await sleep(Math.random() * 20 * attempt);
          continue;
        }
      }
      this.versions.remember(tape, built.rootCommitment, base);
      signals.published(built.rootCommitment);
      this.stats.publishes++;
      this.stats.writes += ops.length;
      return outcomes;
    }
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

  private average(key: keyof VersionCommitGroups['timing'], ms: number): void {
    this.timing[key] += TIMING_WEIGHT * (ms - this.timing[key]);
  }

  /**
   * Once `before` is answered: whether the version it planned is the one to publish on. When it
   * published that version, yes: anyone publishing since moved the version number on, and the
   * compare-and-swap refuses. Otherwise the chain says (another writer may have published the
   * same number with another root, and a swap on the number alone would lose its writes).
   */
  private async stillOn(tape: PublicKey, before: Round, planned: PlannedVersion): Promise<boolean> {
    await before.done;
    if (before.published?.equals(planned.root)) return true;
    const record = await this.chain.getTape(tape);
    if (!record) throw new S3BackendAccessDeniedError('the tape no longer exists');
    return (
      record.sequence === planned.sequence &&
      currentVersion(record)?.root.equals(planned.root) === true
    );
  }

  /**
   * The version's packs, nodes and root into the store, each recorded first under the tape's
   * staging owner (docs/uploads.md) so the collector keeps them until the certification records
   * them under the version's owner. The files' own tracks were stored when their bodies ended.
   * Nodes the base version shares (`baseNodes`: it is the tape's current version, published by
   * this gateway, whose certification recorded them) are kept by the base's references already:
   * a round stores and claims only the nodes on its changed paths.
   */
  private async storeVersion(
    tape: PublicKey,
    latestVersion: number,
    plan: VersionPlan,
    built: BuiltVersion,
    baseNodes: ReadonlySet<string> | undefined,
  ): Promise<void> {
    const owner = this.publisher.stagingOwner(tape, latestVersion);
    const newNodes = built.nodes.filter(
      (n) => baseNodes?.has(n.commitment.toString('hex')) !== true,
    );
    const tracks = [
      ...plan.packs.map((p) => ({ commitment: p.commitment, bytes: p.bytes })),
      ...newNodes.map((n) => ({ commitment: n.commitment, bytes: n.bytes })),
      { commitment: built.rootCommitment, bytes: built.rootBytes },
    ];
    // One batch of references (one SQLite transaction or Redis pipeline), then the bytes.
    await this.store.claimMany(
      tracks.map(({ commitment, bytes }) => ({
        commitment,
        size: bytes.length,
        role: 'track' as const,
        track: owner,
        tape: tape.toBase58(),
      })),
    );
    await Promise.all(
      tracks.map(async ({ commitment, bytes }) => {
        if (!(await this.store.has(commitment))) {
          await this.store.put(commitment, bytes.length, Readable.from([bytes]));
        }
      }),
    );
  }

  /**
   * A small file's bytes, to pack: those its write received (hashed as they arrived, and the
   * certification checks every packed range again), else from the store (verified).
   */
  private async readSmall(file: ChangedFile, ops: readonly ObjectOp[]): Promise<Buffer> {
    for (const op of ops) {
      if (op.kind === 'put' && op.bytes !== undefined && op.file.commitment.equals(file.commitment))
        return op.bytes;
    }
    const opened = await this.reader.open({
      kind: 'blob',
      commitment: file.commitment,
      size: file.size,
    });
    if (opened.bytes) return opened.bytes;
    const chunks: Buffer[] = [];
    for await (const chunk of opened.read(0, opened.size - 1)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /** The group's failure as the S3 refusal each of its writes gets. */
  private async s3Error(error: unknown): Promise<Error> {
    if (error instanceof S3BackendError) return error;
    // A `_redirects` or `_headers` in the group that the fence refuses (docs/site.md, "Rules").
    if (error instanceof RulesError) return new S3BackendInvalidArgumentError(error.message);
    if (error instanceof ApiError) {
      const status = error.getStatus();
      if (status === 413) return new S3BackendInsufficientCapacityError(error.message);
      if (status === 403) {
        return new S3BackendAccessDeniedError(
          notDelegatedMessage(this.identity.publicKey.toBase58()),
        );
      }
      if (status === 507) return new S3BackendUnpaidError(error.message);
      if (status === 410) return new S3BackendTapeExpiredError(error.message);
      if (status === 409 || status >= 500) {
        return new S3BackendSlowDownError(
          `the tape's version could not be published: ${error.message}`,
        );
      }
      return new TapeWriteFailedError(`the version was not certified: ${error.message}`);
    }
    if (error instanceof VersionConflictError) {
      return new S3BackendSlowDownError('other writers kept publishing first; try again');
    }
    const refusal = chainWriteError(
      await this.balance.explain(error),
      this.identity.publicKey.toBase58(),
    );
    return refusal instanceof S3BackendError ? refusal : groupFailedError(refusal);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
