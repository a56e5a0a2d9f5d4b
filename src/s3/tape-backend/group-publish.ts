import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { Readable } from 'node:stream';
import { ChainReader } from '../../chain/chain-reader';
import { currentVersion } from '../../chain/tape-history';
import { ObjectReader } from '../../tracks/object-reader';
import { TrackStore } from '../../tracks/track-store';
import { buildVersion, BuiltVersion } from '../../versions/version-builder';
import { ChangedFile, planVersion, VersionPlan } from '../../versions/version-planner';
import { S3BackendAccessDeniedError } from '../s3-backend';
import { GroupCommitTally, PlannedVersion, Round, RoundSignals } from './commit-round';
import { applyObjectOps, ObjectOp, OpOutcome } from './object-ops';
import { PlanBase, TapeVersions } from './tape-versions';
import { VersionPublishing } from './version-publishing';

/** Rebases after lost compare-and-swaps before the group gives up (503 SlowDown, retried). */
const MAX_ATTEMPTS = 12;

/**
 * The publish step of one commit group (docs/s3.md, "Writes: group commit"): its writes applied
 * to the tape's version, the next version planned, built and stored, then published with
 * compare-and-swap, and planned again on the chain's current version when that swap is lost or
 * the version it was planned on never landed. VersionCommitGroups decides when a group starts
 * and answers its writes.
 */
@Injectable()
export class GroupPublish {
  constructor(
    private readonly chain: ChainReader,
    private readonly versions: TapeVersions,
    private readonly store: TrackStore,
    private readonly reader: ObjectReader,
    private readonly publisher: VersionPublishing,
  ) {}

  /**
   * Plans the writes (first on `before`'s planned version when there is one), then publishes
   * once `before` is answered, provided the chain's current version is still the one planned
   * on; otherwise, and after a lost compare-and-swap, plans again on the current version.
   */
  async publish(
    tape: PublicKey,
    ops: ObjectOp[],
    before: Round | undefined,
    signals: RoundSignals,
    tally: GroupCommitTally,
  ): Promise<OpOutcome[]> {
    let onTopOf = before === undefined ? undefined : await before.planned;
    for (let attempt = 1; ; attempt++) {
      let on: PlannedVersion;
      if (onTopOf !== undefined) {
        on = onTopOf;
        tally.stats.pipelined++;
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
      tally.average('planMs', Date.now() - planStarted);
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
          tally.stats.rebases++;
          continue;
        }
      }
      signals.publishing();
      const publishStarted = Date.now();
      try {
        await this.publisher.publishOwn(tape, built.rootCommitment, on.sequence);
        tally.average('publishMs', Date.now() - publishStarted);
      } catch (error) {
        if (!this.publisher.isConflict(error) || attempt >= MAX_ATTEMPTS) throw error;
        // A Publish that landed although its answer was lost (a resend) is a success.
        const now = await this.chain.getTape(tape);
        if (!(now && currentVersion(now)?.root.equals(built.rootCommitment))) {
          tally.stats.rebases++;
          await sleep(Math.random() * 20 * attempt);
          continue;
        }
      }
      this.versions.remember(tape, built.rootCommitment, base);
      signals.published(built.rootCommitment);
      tally.stats.publishes++;
      tally.stats.writes += ops.length;
      return outcomes;
    }
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
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
