import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { TapeRecord } from '../../chain/account-layouts';
import { ChainReader } from '../../chain/chain-reader';
import { currentVersion } from '../../chain/tape-history';
import { StoreVersionNodes } from '../../versions/store-version-nodes';
import { nameProblem, VersionEntry } from '../../versions/version-entry';
import { VersionRoot } from '../../versions/version-nodes';
import { S3BackendAccessDeniedError } from '../s3-backend';

/** A tape's current version as the S3 endpoint reads it; `root` is null at version 0. */
export interface CurrentVersion {
  record: TapeRecord;
  root: VersionRoot | null;
}

/** A version as the planner takes it: every entry, and the settings its root carries. */
export interface PlanBase {
  entries: VersionEntry[];
  settings: Buffer;
  /** The compiled rules its root carries. */
  rules: Buffer;
  /**
   * The version's own nodes (commitment hex), when this gateway built and published it: the
   * next group stores only the nodes it does not share with them.
   */
  nodes?: ReadonlySet<string>;
}

/** Whole entry lists kept for planning, per tape (the last version each tape was planned on). */
const PLANNED_TAPES_KEPT = 64;

/**
 * The S3 endpoint's view of a tape: the objects of its current version (docs/versions.md), read
 * through the gateway's verified version nodes (the same `StoreVersionNodes` the site and object
 * routes use). Every read takes the tape's pointer fresh from the chain, so a write acknowledged
 * by any gateway is seen by the next request to any gateway (read-after-write, as S3 promises).
 * A tape still at version 0 is an empty bucket.
 */
@Injectable()
export class TapeVersions {
  private readonly planned = new Map<string, { root: string; base: PlanBase }>();

  constructor(
    private readonly chain: ChainReader,
    private readonly nodes: StoreVersionNodes,
  ) {}

  async current(tape: PublicKey): Promise<CurrentVersion> {
    const record = await this.chain.getTape(tape);
    if (!record) throw new S3BackendAccessDeniedError('the tape no longer exists');
    return { record, root: await this.rootOf(record) };
  }

  async rootOf(record: TapeRecord): Promise<VersionRoot | null> {
    const current = currentVersion(record);
    return current ? this.nodes.root(current.root) : null;
  }

  /** The entry named `name` in the version, or null (absent, or a name no version can hold). */
  async lookup(version: CurrentVersion, name: string): Promise<VersionEntry | null> {
    if (version.root === null || nameProblem(name) !== undefined) return null;
    return (await this.nodes.reader().lookupName(version.root, name)) ?? null;
  }

  /** Every entry whose name starts with `prefix`, in name order. */
  async list(version: CurrentVersion, prefix: string): Promise<VersionEntry[]> {
    if (version.root === null) return [];
    return this.nodes.reader().list(version.root, {
      prefix: prefix === '' ? undefined : prefix,
      limit: Number.MAX_SAFE_INTEGER,
    });
  }

  /** Every entry of the tape's current version: the base a group of writes is planned on. */
  async entries(tape: PublicKey, record: TapeRecord): Promise<PlanBase> {
    const current = currentVersion(record);
    if (!current) return { entries: [], settings: Buffer.alloc(0), rules: Buffer.alloc(0) };
    const kept = this.planned.get(tape.toBase58());
    if (kept?.root === current.root.toString('hex')) return kept.base;
    const root = await this.nodes.root(current.root);
    const entries: VersionEntry[] = [];
    for await (const entry of this.nodes.reader().entries(root)) entries.push(entry);
    const base = { entries, settings: root.settings, rules: root.rules };
    this.remember(tape, current.root, base);
    return base;
  }

  /** A version this gateway just published: the next group plans on it without reading it. */
  remember(tape: PublicKey, root: Buffer, base: PlanBase): void {
    const key = tape.toBase58();
    this.planned.delete(key);
    this.planned.set(key, { root: root.toString('hex'), base });
    if (this.planned.size > PLANNED_TAPES_KEPT) {
      this.planned.delete(this.planned.keys().next().value!);
    }
  }
}
