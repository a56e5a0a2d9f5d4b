import {
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
  Optional,
} from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { ChainReader } from '../../chain/chain-reader';
import { GatewayIdentity } from '../../chain/gateway-identity';
import { StorageConfig } from '../../config/storage.config';
import { TrackReference, TrackStore } from '../track-store';
import { GcLease, GcLeaseHandle, LocalGcLease } from './gc-lease';
import { ChainFacts, judgeReference, ReferenceVerdict } from './track-gc-decision';
import { parseVersionOwner } from './version-owner';

/** One pass's counts (also the JSON log line). */
export interface TrackGcPass {
  /** Blobs examined. */
  checked: number;
  referencesDropped: number;
  deleted: number;
  deletedBytes: number;
  /** Blobs with a dead reference that a live or fresh one kept. */
  kept: number;
  byReason: Record<Exclude<ReferenceVerdict, 'live'>, number>;
  /** The pass reached the end of the store and starts again from the first blob. */
  wrapped: boolean;
  ms: number;
  /** Another replica held the lease: nothing was examined. */
  skipped?: boolean;
  /** The lease was lost mid-pass (not renewed in time): the pass stopped early. */
  leaseLost?: boolean;
}

/** When a pass ran (unix ms), for checking that replicas never overlap. */
export interface TrackGcPassWindow {
  startedAt: number;
  endedAt: number;
}

export interface TrackGcStats {
  enabled: boolean;
  /** Why it does not run although storage.gc.enabled: a reader holds no reference index. */
  disabledReason?: 'reader';
  passes: number;
  failedPasses: number;
  checked: number;
  referencesDropped: number;
  deleted: number;
  deletedBytes: number;
  lastPass?: TrackGcPass & { at: string };
  lastError?: string;
  /** Passes not run because another replica held the lease. */
  skippedPasses: number;
  /** The latest passes this process ran (at most RECENT_PASSES), oldest first. */
  recentPasses: TrackGcPassWindow[];
}

const RECENT_PASSES = 20;

/**
 * The track store's garbage collector (docs/tracks.md, "Garbage collection"). Each pass takes
 * the next `max_tracks_per_pass` referenced blobs from the store's index, reads the track and
 * tape accounts they name (getMultipleAccounts, 100 per request), drops the references that
 * are dead, and has the store delete blobs left with none. Listing and deletion stay behind the
 * TrackStore port; this service only decides.
 *
 * Only a writer collects: its reference index is the one its uploads fill. A reader's index is
 * empty (it takes no uploads), so a pass there would judge nothing, or, on a store shared with
 * writers, release blobs on the strength of references it never saw; it never runs one.
 */
@Injectable()
export class TrackGarbageCollector implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('track-gc');
  private timer?: NodeJS.Timeout;
  private running?: Promise<TrackGcPass>;
  private stopped = false;
  private readonly totals: TrackGcStats;

  constructor(
    private readonly store: TrackStore,
    private readonly chain: ChainReader,
    private readonly storage: StorageConfig,
    private readonly identity: GatewayIdentity,
    @Optional() private readonly lease: GcLease = new LocalGcLease(),
  ) {
    this.totals = {
      enabled: this.runs,
      ...(storage.gc.enabled && !identity.isWriter && { disabledReason: 'reader' as const }),
      passes: 0,
      failedPasses: 0,
      checked: 0,
      referencesDropped: 0,
      deleted: 0,
      deletedBytes: 0,
      skippedPasses: 0,
      recentPasses: [],
    };
  }

  private get runs(): boolean {
    return this.storage.gc.enabled && this.identity.isWriter;
  }

  onApplicationBootstrap(): void {
    if (this.runs) this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  stats(): TrackGcStats {
    return { ...this.totals, recentPasses: [...this.totals.recentPasses] };
  }

  /** One pass now (a pass already running is joined, not doubled). */
  runPass(): Promise<TrackGcPass> {
    if (!this.identity.isWriter) {
      return Promise.reject(new Error('a reader gateway does not collect garbage'));
    }
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.runPass()
        .catch(() => undefined) // counted and logged by pass()
        .finally(() => this.schedule());
    }, this.storage.gc.interval_ms);
    this.timer.unref();
  }

  /**
   * One pass under the lease: with replicas (storage.shared), one at a time runs a pass; a pass
   * while another replica holds the lease is skipped, not doubled.
   */
  private async pass(): Promise<TrackGcPass> {
    let lease: GcLeaseHandle | null;
    try {
      lease = await this.lease.acquire();
    } catch (err) {
      this.totals.failedPasses++;
      this.totals.lastError = (err as Error).message;
      this.logger.warn({ msg: 'track gc lease unavailable', error: (err as Error).message });
      throw err;
    }
    if (!lease) {
      this.totals.skippedPasses++;
      return { ...emptyPass(), skipped: true };
    }
    const startedAt = Date.now();
    try {
      return await this.passUnderLease(lease);
    } finally {
      const endedAt = Date.now();
      await lease.release();
      this.totals.recentPasses.push({ startedAt, endedAt });
      if (this.totals.recentPasses.length > RECENT_PASSES) this.totals.recentPasses.shift();
    }
  }

  private async passUnderLease(lease: GcLeaseHandle): Promise<TrackGcPass> {
    const started = Date.now();
    const decidedAt = started;
    const limit = this.storage.gc.max_tracks_per_pass;
    const result = emptyPass();
    try {
      const blobs = await this.store.listReferenced(await this.lease.cursor(), limit);
      result.checked = blobs.length;
      const facts = await this.readChain(blobs.flatMap((b) => b.references));
      let last: Buffer | undefined;
      for (const blob of blobs) {
        if (!lease.held()) {
          result.leaseLost = true;
          break;
        }
        last = blob.commitment;
        const dead: TrackReference[] = [];
        for (const ref of blob.references) {
          const verdict = judgeReference(ref, facts, this.storage.gc, decidedAt);
          if (verdict === 'live') continue;
          result.byReason[verdict]++;
          dead.push(ref);
        }
        if (dead.length === 0) continue;
        const outcome = await this.store.release(blob.commitment, dead, decidedAt);
        result.referencesDropped += dead.length;
        if (outcome.outcome === 'deleted') {
          result.deleted++;
          result.deletedBytes += outcome.bytes;
        } else if (outcome.outcome === 'kept') {
          result.kept++;
        }
      }
      result.wrapped = blobs.length < limit && !result.leaseLost;
      // Lost mid-pass: the next holder goes on after the last blob this pass judged.
      if (!result.leaseLost || last) await this.lease.saveCursor(result.wrapped ? undefined : last);
      result.ms = Date.now() - started;
      this.record(result);
      return result;
    } catch (err) {
      this.totals.failedPasses++;
      this.totals.lastError = (err as Error).message;
      this.logger.warn({ msg: 'track gc pass failed', error: (err as Error).message });
      throw err;
    }
  }

  /**
   * The track and tape accounts of these references: getMultipleAccounts, no listing. A version
   * owner names no account: its tape (whose pointer says which versions are kept) is read instead.
   */
  private async readChain(refs: TrackReference[]): Promise<ChainFacts> {
    const trackAddresses = new Set<string>();
    const tapeAddresses = new Set<string>();
    for (const ref of refs) {
      const version = parseVersionOwner(ref.track);
      if (version) tapeAddresses.add(version.tape);
      else trackAddresses.add(ref.track);
      tapeAddresses.add(ref.tape);
    }
    return this.readAccounts([...trackAddresses], [...tapeAddresses]);
  }

  private async readAccounts(
    trackAddresses: string[],
    tapeAddresses: string[],
  ): Promise<ChainFacts> {
    const [tracks, tapes, config, chainNow] = await Promise.all([
      this.chain.getTracks(trackAddresses.map((a) => new PublicKey(a))),
      this.chain.getTapes(tapeAddresses.map((a) => new PublicKey(a))),
      this.chain.networkConfig(),
      this.chain.chainTime(),
    ]);
    return {
      tracks: new Map(trackAddresses.map((a, i) => [a, tracks[i]])),
      tapes: new Map(tapeAddresses.map((a, i) => [a, tapes[i]])),
      chainNow,
      genesisTime: config.genesisTime,
      epochDurationSecs: config.epochDurationSecs,
    };
  }

  private record(pass: TrackGcPass): void {
    const t = this.totals;
    t.passes++;
    t.checked += pass.checked;
    t.referencesDropped += pass.referencesDropped;
    t.deleted += pass.deleted;
    t.deletedBytes += pass.deletedBytes;
    t.lastPass = { ...pass, at: new Date().toISOString() };
    this.logger.log({ msg: 'track gc pass', ...pass });
  }
}

function emptyPass(): TrackGcPass {
  return {
    checked: 0,
    referencesDropped: 0,
    deleted: 0,
    deletedBytes: 0,
    kept: 0,
    byReason: { 'track-closed': 0, 'tape-expired': 0, 'orphan-segment': 0, 'version-dropped': 0 },
    wrapped: false,
    ms: 0,
  };
}
