import { ApiError } from '../http/api-error';

/** Certifications that run at once, gateway-wide: each walks a whole version (CPU and reads). */
export const MAX_CERTIFYING = 2;
/** Certifications waiting for a place, gateway-wide; past it, 503 at once. */
export const MAX_WAITING = 32;

/**
 * Bounds the work `POST /publish` makes the gateway do (docs/uploads.md, "Publish"): a
 * certification reads and rebuilds a whole version, seconds of CPU for 100,000 names, so a
 * tenant signing requests in a loop must not be able to queue thousands of them. One
 * certification per tape at a time (a second one answers 429: the publisher retries after the
 * first), at most MAX_CERTIFYING gateway-wide, the rest waiting in order up to MAX_WAITING.
 */
export class CertificationGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly tapes = new Set<string>();

  constructor(
    private readonly maxRunning = MAX_CERTIFYING,
    private readonly maxWaiting = MAX_WAITING,
  ) {}

  async run<T>(tape: string, work: () => Promise<T>): Promise<T> {
    if (this.tapes.has(tape)) {
      throw new ApiError(
        429,
        'too_many_requests',
        'a version of this tape is being certified; retry once it is done',
      );
    }
    if (this.running >= this.maxRunning && this.waiting.length >= this.maxWaiting) {
      throw new ApiError(
        503,
        'unavailable',
        'the gateway is certifying other versions; retry in a moment',
      );
    }
    this.tapes.add(tape);
    try {
      if (this.running >= this.maxRunning)
        await new Promise<void>((resolve) => this.waiting.push(resolve));
      this.running++;
      try {
        return await work();
      } finally {
        this.running--;
        this.waiting.shift()?.();
      }
    } finally {
      this.tapes.delete(tape);
    }
  }

  get stats(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
