/** Where log lines finally go (stdout in production, an array in tests). */
export interface LineSink {
  write(line: string): unknown;
}

/** pino's warn level: lines at or above it are never held back. */
const WARN_LEVEL = 40;

/** Held lines past this many are written at once (start-up never logs nearly as many). */
const MAX_HELD = 500;

/**
 * Holds the routine (info and below) lines of start-up back until the ready line, so that a
 * gateway's first line says where it listens rather than how its modules started. Warnings
 * and errors pass at once (a person must see them even when start-up then hangs or fails).
 * Held lines follow the ready line in their order, each with its own time; `release` without
 * a ready line (a failed start, or start-up past `holdMs`) writes them as they were.
 */
export class ReadyFirstStream implements LineSink {
  private held: string[] | undefined = [];
  private readyNext = false;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: LineSink,
    holdMs = 15_000,
  ) {
    this.timer = holdMs > 0 ? setTimeout(() => this.release(), holdMs) : undefined;
    this.timer?.unref();
  }

  get holding(): boolean {
    return this.held !== undefined;
  }

  write(line: string): void {
    if (this.readyNext) {
      this.readyNext = false;
      this.release(line);
      return;
    }
    if (!this.held || levelOf(line) >= WARN_LEVEL) {
      this.out.write(line);
      return;
    }
    this.held.push(line);
    if (this.held.length >= MAX_HELD) this.release();
  }

  /** The next line written is the ready line: it is written first, then what was held. */
  expectReady(): void {
    if (this.held) this.readyNext = true;
  }

  /** Writes `first` (the ready line), then what was held; from then on every line passes. */
  release(first?: string): void {
    const held = this.held ?? [];
    this.held = undefined;
    this.readyNext = false;
    clearTimeout(this.timer);
    if (first !== undefined) this.out.write(first);
    for (const line of held) this.out.write(line);
  }
}

/** The level of a pino line (`{"level":30,…`); unparsable lines count as errors (never held). */
function levelOf(line: string): number {
  const match = /^\{"level":(\d+)/.exec(line);
  return match ? Number(match[1]) : Number.MAX_SAFE_INTEGER;
}
