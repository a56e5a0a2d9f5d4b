import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EndedTapes } from './ended-tapes';
import { MultipartStore } from './multipart-store';

/**
 * How often the multipart uploads that hold spool are looked over. Short next to the hours the
 * limits are counted in, so a tape that expires (or an upload that idles) gives its share of the
 * spool back within minutes, not at `upload_expiry_hours`; one sweep costs a Redis or directory
 * scan and one chain read per 100 tapes with uploads in progress.
 */
export const MULTIPART_SWEEP_MS = 5 * 60 * 1000;

/**
 * Gives back the spool of multipart uploads nobody will complete (docs/s3.md, "Spool budget"):
 * uploads begun more than `upload_expiry_hours` ago or idle for `upload_idle_hours`, and every
 * upload of a tape that has expired or is gone. Runs at start-up, then every MULTIPART_SWEEP_MS,
 * on every replica (removal is idempotent).
 */
@Injectable()
export class MultipartSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('s3-multipart');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly uploads: MultipartStore,
    private readonly tapes: EndedTapes,
  ) {}

  onApplicationBootstrap(): void {
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), MULTIPART_SWEEP_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One sweep (one at a time); failures are logged and the next sweep tries again. */
  sweep(now = Date.now()): Promise<void> {
    this.running ??= this.sweepOnce(now).finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweepOnce(now: number): Promise<void> {
    try {
      await this.uploads.removeExpired(now);
      // An unreadable chain ends nothing: uploads are removed only for tapes known to be over.
      const ended = await this.tapes.among(await this.uploads.openTapes());
      for (const tape of ended) {
        const removed = await this.uploads.removeTapeUploads(tape);
        if (removed > 0) this.logger.log({ event: 'ended-tape-uploads', tape, removed });
      }
    } catch (err) {
      this.logger.warn({ msg: 'multipart sweep failed', error: (err as Error).message });
    }
  }
}
