import {
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
  Optional,
} from '@nestjs/common';
import { ChainReader } from '../../chain/chain-reader';
import { GatewayIdentity } from '../../chain/gateway-identity';
import { TapePointerFeed, TapePointerWatch } from '../../chain/tape-pointer-feed';
import { StorageConfig } from '../../config/storage.config';
import { TrackReference, TrackStore } from '../track-store';
import { GcLease, GcLeaseHandle, LocalGcLease } from './gc-lease';
import { readChainFacts } from './chain-facts-reader';
import { ChainFacts, judgeReference, keeps } from './track-gc-decision';
import { emptyPass, TrackGcPass, TrackGcStats, TrackGcTotals } from './track-gc-totals';

/** Tapes whose changes on chain have the collector check them (`served`). */
const SERVED_TAPES = 100_000;

/**
 * The track store's garbage collector (docs/tracks.md, "Garbage collection"). Each pass first
 * checks whole the tapes that changed here (`watch`: a version certified, bytes staged), so a
 * dropped version's bytes go at the first pass after the Publish lands; then it takes the next
 * `max_tracks_per_pass` referenced blobs from the store's index after a cursor (what changed
 * elsewhere: track accounts closed, tapes expired, versions published through another gateway).
 * For both it reads the track and tape accounts the references name (getMultipleAccounts, 100
 * per request), drops the references that are dead, and has the store delete blobs left with
 * none. Listing and deletion stay behind the TrackStore port; this service only decides.
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
  private readonly totals: TrackGcTotals;
  /** Tapes to check whole at the next pass, oldest first. */
  private readonly watched = new Set<string>();
  /**
   * Tapes this gateway certified or staged bytes for (at most SERVED_TAPES, the oldest going
   * first): when the chain says one changed (a rollback, promote, alias removal or SetKeep,
   * sent by its owner, not through this gateway), it is checked at the next pass, so a version
   * that left its table is freed within one interval, as after a Publish.
   */
  private readonly served = new Set<string>();
  private pointerWatch?: TapePointerWatch;

  constructor(
    private readonly store: TrackStore,
    private readonly chain: ChainReader,
    private readonly storage: StorageConfig,
    private readonly identity: GatewayIdentity,
    @Optional() private readonly lease: GcLease = new LocalGcLease(),
    /** Tape accounts as they change: a table change nobody published here (see `served`). */
    @Optional() private readonly feed?: TapePointerFeed,
  ) {
    this.totals = new TrackGcTotals({
      enabled: this.runs,
      ...(storage.gc.enabled && !identity.isWriter && { disabledReason: 'reader' as const }),
    });
  }

  private get runs(): boolean {
    return this.storage.gc.enabled && this.identity.isWriter;
  }

  onApplicationBootstrap(): void {
    if (!this.runs) return;
    this.schedule();
    this.pointerWatch = this.feed?.watch({
      changed: (tape) => {
        if (this.served.has(tape)) this.watched.add(tape);
      },
      state: () => undefined,
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.pointerWatch?.close();
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  stats(): TrackGcStats {
    return this.totals.snapshot(this.watched.size);
  }

  /**
   * Checks this tape whole at the next pass, and again at each pass while it has references
   * that the chain or the clock will settle soon (a version certified but not published yet,
   * bytes staged on its current version). Called when a version of it is certified or bytes are
   * staged for it. A reader never collects, so it never watches.
   */
  watch(tape: string): void {
    if (!this.runs) return;
    this.watched.add(tape);
    this.served.delete(tape);
    this.served.add(tape);
    if (this.served.size > SERVED_TAPES) this.served.delete(this.served.values().next().value!);
  }

  /**
   * Checks one tape whole now, outside the passes (the store's deletion is safe against a pass
   * running at the same time): an upload that would pass the tape's bound first has the bytes
   * of its dropped versions and superseded uploads collected.
   */
  async collectTape(tape: string): Promise<TrackGcPass> {
    if (!this.identity.isWriter) throw new Error('a reader gateway does not collect garbage');
    const result = emptyPass();
    const pending = await this.checkTapes([tape], result);
    if (pending.size > 0) this.watch(tape);
    // Not a pass, but what it deleted counts in the totals (/healthz, metrics) all the same.
    this.totals.count(result);
    return result;
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
    const targeted = await this.targetedChecks();
    let lease: GcLeaseHandle | null;
    try {
      lease = await this.lease.acquire();
    } catch (err) {
      this.totals.failed(err);
      this.logger.warn({ msg: 'track gc lease unavailable', error: (err as Error).message });
      throw err;
    }
    if (!lease) {
      this.totals.skipped();
      this.record(targeted);
      return { ...targeted, skipped: true };
    }
    const startedAt = Date.now();
    try {
      return await this.passUnderLease(lease, targeted);
    } finally {
      const endedAt = Date.now();
      await lease.release();
      this.totals.ran({ startedAt, endedAt });
    }
  }

  /**
   * The watched tapes (at most `max_tracks_per_pass` of them, oldest first), each checked whole.
   * Not under the lease: each writer checks what changed through it, and deletion is safe
   * against another writer's pass (the lease bounds work, the fence keeps claimed bytes).
   */
  private async targetedChecks(): Promise<TrackGcPass> {
    const started = Date.now();
    const result = emptyPass();
    const tapes = [...this.watched].slice(0, this.storage.gc.max_tracks_per_pass);
    if (tapes.length === 0) return result;
    try {
      const pending = await this.checkTapes(tapes, result);
      for (const tape of tapes) {
        this.watched.delete(tape);
        if (pending.has(tape)) this.watched.add(tape); // again next pass, behind the others
      }
    } catch (err) {
      this.totals.failed(err);
      this.logger.warn({ msg: 'track gc targeted check failed', error: (err as Error).message });
    }
    result.ms = Date.now() - started;
    return result;
  }

  /** Judges every reference of these tapes; returns the tapes with references still pending. */
  private async checkTapes(tapes: string[], result: TrackGcPass): Promise<Set<string>> {
    const decidedAt = Date.now();
    const blobs = (await Promise.all(tapes.map((t) => this.store.referencesOfTape(t)))).flat();
    result.tapesChecked += tapes.length;
    result.checked += blobs.length;
    const pending = new Set<string>();
    if (blobs.length === 0) return pending;
    const facts = await readChainFacts(
      this.chain,
      blobs.flatMap((b) => b.references),
    );
    for (const blob of blobs) {
      await this.judgeBlob(blob, facts, decidedAt, result, (ref) => pending.add(ref.tape));
    }
    return pending;
  }

  /** Drops a blob's dead references (and the bytes when none is left). */
  private async judgeBlob(
    blob: { commitment: Buffer; references: TrackReference[] },
    facts: ChainFacts,
    decidedAt: number,
    result: TrackGcPass,
    onPending: (ref: TrackReference) => void = () => undefined,
  ): Promise<void> {
    const dead: TrackReference[] = [];
    for (const ref of blob.references) {
      const verdict = judgeReference(ref, facts, this.storage.gc, decidedAt, blob.references);
      if (verdict === 'pending') onPending(ref);
      if (keeps(verdict)) continue;
      result.byReason[verdict as keyof TrackGcPass['byReason']]++;
      dead.push(ref);
    }
    if (dead.length === 0) return;
    const outcome = await this.store.release(blob.commitment, dead, decidedAt);
    result.referencesDropped += dead.length;
    if (outcome.outcome === 'deleted') {
      result.deleted++;
      result.deletedBytes += outcome.bytes;
    } else if (outcome.outcome === 'kept') {
      result.kept++;
    }
  }

  private async passUnderLease(lease: GcLeaseHandle, targeted: TrackGcPass): Promise<TrackGcPass> {
    const started = Date.now() - targeted.ms;
    const decidedAt = Date.now();
    const limit = this.storage.gc.max_tracks_per_pass;
    const result = targeted;
    try {
      const blobs = await this.store.listReferenced(await this.lease.cursor(), limit);
      result.checked += blobs.length;
      // An empty store costs no chain read.
      const facts =
        blobs.length > 0
          ? await readChainFacts(
              this.chain,
              blobs.flatMap((b) => b.references),
            )
          : undefined;
      let last: Buffer | undefined;
      for (const blob of blobs) {
        if (!lease.held()) {
          result.leaseLost = true;
          break;
        }
        last = blob.commitment;
        await this.judgeBlob(blob, facts!, decidedAt, result);
      }
      result.wrapped = blobs.length < limit && !result.leaseLost;
      // Lost mid-pass: the next holder goes on after the last blob this pass judged.
      if (!result.leaseLost || last) await this.lease.saveCursor(result.wrapped ? undefined : last);
      result.ms = Date.now() - started;
      this.record(result);
      return result;
    } catch (err) {
      this.totals.failed(err);
      this.logger.warn({ msg: 'track gc pass failed', error: (err as Error).message });
      throw err;
    }
  }

  private record(pass: TrackGcPass): void {
    this.totals.record(pass);
    this.logger.log({ msg: 'track gc pass', ...pass });
  }
}
