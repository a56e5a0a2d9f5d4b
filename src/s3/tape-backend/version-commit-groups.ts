import { Injectable, Logger } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { Readable } from 'node:stream';
import { TapeRecord } from '../../chain/account-layouts';
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
import {
  S3BackendAccessDeniedError,
  S3BackendError,
  S3BackendInsufficientCapacityError,
  S3BackendSlowDownError,
  S3BackendTapeExpiredError,
  S3BackendUnpaidError,
} from '../s3-backend';
import { chainWriteError, notDelegatedMessage, TapeWriteFailedError } from './chain-write-errors';
import { applyObjectOps, ObjectOp, OpOutcome, WrittenObject } from './object-ops';
import { TapeVersions } from './tape-versions';
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
}

/**
 * Group commit of S3 writes per tape (docs/s3.md, "Writes: group commit"). Every write's bytes
 * are in the gateway's store before it joins; a tape has at most one Publish in flight, and the
 * writes that arrive meanwhile form the next group. A group is planned on the tape's current
 * version, built, stored and published with the gateway's own keys (compare-and-swap on the
 * version it was planned on); a lost swap (another writer gateway, a `tape deploy`) plans the
 * same writes again on the version that won. Each write is answered once its version is
 * confirmed, or refused with the group's error: nothing acknowledged is lost.
 */
@Injectable()
export class VersionCommitGroups {
  private readonly logger = new Logger('s3-group-commit');
  private readonly groups = new Map<string, Group>();
  readonly stats: GroupCommitStats = { publishes: 0, writes: 0, rebases: 0 };

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
      group = { pending: new WriteQueue<Waiting>(REFILL_WAIT_MS), running: false };
      this.groups.set(key, group);
    }
    const joined = group;
    return new Promise((resolve, reject) => {
      joined.pending.push({ op, resolve, reject });
      if (!joined.running) void this.drain(key, tape, joined);
    });
  }

  private async drain(key: string, tape: PublicKey, group: Group): Promise<void> {
    group.running = true;
    try {
      while (group.pending.length > 0) {
        const batch = group.pending.take(MAX_GROUP_OPS);
        await this.commit(tape, batch);
        await group.pending.refilled(batch.length);
      }
    } finally {
      group.running = false;
      if (group.pending.length === 0) this.groups.delete(key);
    }
  }

  private async commit(tape: PublicKey, batch: Waiting[]): Promise<void> {
    let outcomes: OpOutcome[];
    try {
      outcomes = await this.publishGroup(
        tape,
        batch.map((w) => w.op),
      );
    } catch (error) {
      const refusal = await this.s3Error(error);
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

  private async publishGroup(tape: PublicKey, ops: ObjectOp[]): Promise<OpOutcome[]> {
    for (let attempt = 1; ; attempt++) {
      const record = await this.chain.getTape(tape);
      if (!record) throw new S3BackendAccessDeniedError('the tape no longer exists');
      const base = await this.versions.entries(tape, record);
      const { change, outcomes } = applyObjectOps(base.entries, ops, Math.floor(Date.now() / 1000));
      if (change.put.length === 0 && (change.remove ?? []).length === 0) return outcomes;
      const plan = await planVersion(base, change, (file) => this.readSmall(file));
      const built = buildVersion(plan.entries, plan.settings);
      await this.storeVersion(tape, record, plan, built, base.nodes);
      try {
        await this.publisher.publishOwn(tape, built.rootCommitment, record.sequence);
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
      this.versions.remember(tape, built.rootCommitment, {
        ...plan,
        nodes: new Set(built.nodes.map((n) => n.commitment.toString('hex'))),
      });
      this.stats.publishes++;
      this.stats.writes += ops.length;
      return outcomes;
    }
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
    record: TapeRecord,
    plan: VersionPlan,
    built: BuiltVersion,
    baseNodes: ReadonlySet<string> | undefined,
  ): Promise<void> {
    const owner = this.publisher.stagingOwner(tape, record.latestVersion);
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

  /** A small file's bytes, to pack: stored (and verified) when its body ended. */
  private async readSmall(file: ChangedFile): Promise<Buffer> {
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
    return chainWriteError(await this.balance.explain(error), this.identity.publicKey.toBase58());
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
