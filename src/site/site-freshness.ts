import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { TapePointerFeed, TapePointerWatch } from '../chain/tape-pointer-feed';
import { SiteDirectory } from './site-directory';
import { pointerOfRecord, SiteSource } from './site-source';

export interface SiteFreshnessOptions {
  /** Between two polls of the cached tapes' pointers while the subscription is down. */
  pollMs: number;
}

/** Tapes per poll request: getMultipleAccounts' limit. */
const POLL_BATCH = 100;

/**
 * Keeps site snapshots on their tape's current version: one subscription to every tape account
 * (TapePointerFeed) tells the directory of each new pointer as soon as it is confirmed. While
 * the subscription is down (not yet acknowledged, refused by the node, lost), the pointers of
 * the tapes in memory are polled every `pollMs` instead, and once more when it comes back (what
 * changed in between was never notified). Visitors' `max-age` is not touched: this is the
 * gateway's own cache.
 */
export class SiteFreshness implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('site');
  private watch?: TapePointerWatch;
  private timer?: NodeJS.Timeout;
  private up = false;
  private polling = false;
  private stopped = false;

  constructor(
    private readonly feed: TapePointerFeed,
    private readonly directory: SiteDirectory,
    private readonly source: SiteSource,
    private readonly options: SiteFreshnessOptions,
  ) {}

  onApplicationBootstrap(): void {
    this.watch = this.feed.watch({
      changed: (tape, record) => this.directory.pointerChanged(tape, pointerOfRecord(record)),
      state: (up) => {
        this.up = up;
        // Operators see which way new versions arrive (docs/site.md, "Sites from versions").
        if (up) this.logger.log('tape pointers: by subscription');
        else
          this.logger.warn(
            `tape pointers: subscription lost, polled every ${this.options.pollMs} ms`,
          );
        // Back up: one catch-up poll for what changed while nobody was listening.
        if (up) void this.poll();
        else this.schedule();
      },
    });
    this.schedule();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    this.watch?.close();
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  /** Whether pointers come from the subscription right now (else from polls). */
  get subscribed(): boolean {
    return this.up;
  }

  /** One pass over the pointers of every cached tape. */
  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const tapes = this.directory.cachedTapes();
      for (let i = 0; i < tapes.length; i += POLL_BATCH) {
        const batch = tapes.slice(i, i + POLL_BATCH);
        const pointers = await this.source.pointers(batch);
        batch.forEach((tape, j) => {
          const pointer = pointers[j];
          if (pointer !== null) this.directory.pointerChanged(tape, pointer);
        });
      }
    } catch (err) {
      this.logger.warn(`site pointers not polled: ${(err as Error).message}`);
    } finally {
      this.polling = false;
    }
  }

  private schedule(): void {
    if (this.stopped || this.up || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.up || this.stopped) return;
      void this.poll().finally(() => this.schedule());
    }, this.options.pollMs);
    this.timer.unref();
  }
}
