import { Keypair, PublicKey } from '@solana/web3.js';
import { VersionConflictError } from '../../chain/chain-error';
import { ChainServices } from '../../chain/chain.module';
import { transactionFee } from '../../chain/priority-fee';
import { commitmentToHex } from '../../tracks/commitment';
import { BuiltVersion, buildVersion } from '../../versions/version-builder';
import {
  ChangedFile,
  VersionChange,
  VersionPlan,
  planVersion,
} from '../../versions/version-planner';
import { CliError } from '../cli-error';
import { GatewayClient } from '../deploy/gateway-client';
import { CurrentVersion, readCurrentVersion } from './current-version';
import { PublishedVersion, VersionPublisher } from './version-publisher';

/** Plans tried on a tape other publishers keep moving, before giving up. */
export const MAX_PUBLISH_TRIES = 5;

export interface ChangeRequest {
  tape: PublicKey;
  tapeSigner: Keypair;
  wallet: Keypair;
  /** The change on the version it is planned on (re-made after a lost race: it may refuse). */
  change: (base: CurrentVersion) => VersionChange;
  /** The current version, read already (while the caller hashed): the first plan's base. */
  firstBase?: Promise<CurrentVersion>;
  readSmall: (file: ChangedFile) => Promise<Buffer>;
  pathOf: (file: ChangedFile) => string;
  /** Checks before anything is sent (capacity, funds); throws to stop. `attempt` counts from 1. */
  check?: (planned: PlannedChange, attempt: number) => Promise<void>;
  /** Publish under this alias (a preview) instead of as the current version. */
  alias?: string;
  /** A lost race: the tape changed (its `sequence`), the change is planned again on it. */
  onRebase?: (lostTo: number | null, attempt: number) => void;
}

export interface PlannedChange {
  base: CurrentVersion;
  plan: VersionPlan;
  built: BuiltVersion;
  /** Bytes of tracks this version has that its base has not (what Publish adds to the tape). */
  addedBytes: number;
}

export interface ChangeOutcome extends PlannedChange {
  /** Undefined when the change leaves the version as it is: nothing was published. */
  published?: PublishedVersion;
  /** Plans made in all (1 unless another publisher won a race). */
  attempts: number;
}

/**
 * One change to a tape's site, published as one version (docs/versions.md, "Concurrency"):
 * read the current version, plan the change on it, upload what the gateway lacks, publish with
 * compare-and-swap; when another publisher won meanwhile, read the version that won and plan
 * the same change on it again (a rebase), a bounded number of times.
 */
export class ChangePublisher {
  constructor(
    private readonly chain: ChainServices,
    private readonly gateway: GatewayClient,
    private readonly publisher: VersionPublisher,
  ) {}

  async publish(req: ChangeRequest): Promise<ChangeOutcome> {
    for (let attempt = 1; ; attempt++) {
      const base =
        attempt === 1 && req.firstBase
          ? await req.firstBase
          : await readCurrentVersion(this.chain.reader, this.gateway, req.tape);
      const plan = await planVersion(base, req.change(base), req.readSmall);
      const built = buildVersion(plan.entries, plan.settings, plan.rules);
      const planned = { base, plan, built, addedBytes: addedBytesOf(plan, built, base) };
      if (!req.alias && base.version > 0 && built.rootCommitment.equals(base.rootCommitment)) {
        return { ...planned, attempts: attempt };
      }
      await req.check?.(planned, attempt);
      try {
        const published = await this.publisher.publish({
          tape: req.tape,
          tapeSigner: req.tapeSigner,
          wallet: req.wallet,
          plan,
          built,
          expectedSequence: base.record.sequence,
          alias: req.alias,
          pathOf: req.pathOf,
        });
        return { ...planned, published, attempts: attempt };
      } catch (err) {
        if (!(err instanceof VersionConflictError)) throw err;
        if (attempt >= MAX_PUBLISH_TRIES) {
          throw new CliError(
            `version conflict: the tape moved to another version ${attempt} times while this change was published (another publisher is writing it); run the command again`,
          );
        }
        req.onRebase?.(err.currentSequence, attempt);
      }
    }
  }

  /** What the Publish costs the wallet, about: its signatures and priority fee, no rent. */
  publishFee(tapeSigner: Keypair, wallet: Keypair, storageAuthority: PublicKey): number {
    const publish = this.chain.ix.publish({
      signer: tapeSigner.publicKey,
      storageAuthority,
      tape: PublicKey.default,
      expectedSequence: 0,
      root: Buffer.alloc(32),
      versionBytes: 0,
      keptBytes: 0,
    });
    const signatures = tapeSigner.publicKey.equals(wallet.publicKey) ? 2 : 3;
    return transactionFee([publish], signatures, this.chain.writer.packing);
  }
}

/**
 * The bytes a version adds to its base (docs/versions.md, "What a version holds"): its root and
 * nodes the base has not, its new packs, and the own tracks of files whose bytes the base has
 * not (planVersion reuses any location the base has). The gateway certifies the exact figure;
 * this is for the capacity check made before anything is sent.
 */
export function addedBytesOf(plan: VersionPlan, built: BuiltVersion, base: CurrentVersion): number {
  const seen = new Set(base.manifestTracks.keys());
  let added = 0;
  const add = (commitment: Buffer, bytes: number) => {
    const hex = commitmentToHex(commitment);
    if (seen.has(hex)) return;
    seen.add(hex);
    added += bytes;
  };
  add(built.rootCommitment, built.rootBytes.length);
  for (const node of built.nodes) add(node.commitment, node.bytes.length);
  for (const pack of plan.packs) add(pack.commitment, pack.bytes.length);
  for (const file of plan.tracks) {
    add(
      file.commitment,
      file.size + (file.layout.kind === 'stream' ? file.layout.manifestBytes : 0),
    );
  }
  return added;
}
