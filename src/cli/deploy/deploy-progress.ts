import { formatBytes, formatDuration } from '../output/units';

/**
 * What a deploy reports while it runs, on stderr: a redrawn bar on a terminal, plain lines
 * otherwise (CI logs, pipes), so stdout keeps only the result.
 */
export interface DeployProgress {
  /** A phase line: "hashed 1000 files (50 MiB)". */
  step(text: string): void;
  /** The upload phase starts: how many tracks and bytes will be sent. */
  startUploads(tracks: number, bytes: number): void;
  bytesSent(bytes: number): void;
  trackUploaded(label: string): void;
  /** An upload waits `ms` before asking again: the gateway answered `status` (429, 503). */
  waiting(status: number, ms: number): void;
  /** The upload phase is over (the bar is cleared). */
  endUploads(): void;
}

/** How often a plain log says the gateway is making uploads wait, at most. */
const PLAIN_WAIT_EVERY_MS = 5000;

export class PlainProgress implements DeployProgress {
  private waitNotedAt = -Infinity;

  constructor(
    private readonly write: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  step(text: string): void {
    this.write(text);
  }

  startUploads(tracks: number, bytes: number): void {
    if (tracks > 0)
      this.write(`uploading ${tracks} ${tracks === 1 ? 'file' : 'files'} (${formatBytes(bytes)})`);
  }

  bytesSent(_bytes?: number): void {}

  trackUploaded(label: string): void {
    this.write(`uploaded ${label}`);
  }

  waiting(status: number, ms: number): void {
    const now = this.now();
    if (now - this.waitNotedAt < PLAIN_WAIT_EVERY_MS) return;
    this.waitNotedAt = now;
    this.write(`the gateway is busy (${status}): waiting ${seconds(ms)} before asking again`);
  }

  endUploads(): void {}
}

/** Where the upload phase stands, for one redraw of the bar. */
export interface UploadStatus {
  tracks: number;
  tracksDone: number;
  bytes: number;
  bytesDone: number;
  /** Since the uploads started. */
  elapsedMs: number;
  /** Set while the gateway makes uploads wait: until when (ms from now) and why. */
  waiting?: { status: number; ms: number };
}

export const BAR_WIDTH = 24;

/**
 * One line of the bar: `[####----]  42%  120/300 files  1.2 MiB / 3 MiB  850 KiB/s  ETA 3s`.
 * The rate is the average since the uploads started; the ETA is the bytes left at that rate (the
 * files left at the file rate when there are no bytes), shown once there is a second to go on.
 */
export function progressLine(s: UploadStatus): string {
  const fraction = Math.min(
    1,
    s.bytes > 0 ? s.bytesDone / s.bytes : s.tracksDone / Math.max(1, s.tracks),
  );
  const filled = Math.round(fraction * BAR_WIDTH);
  const bar = '#'.repeat(filled) + '-'.repeat(BAR_WIDTH - filled);
  const percent = String(Math.floor(fraction * 100)).padStart(3);
  const parts = [
    `[${bar}] ${percent}%`,
    `${s.tracksDone}/${s.tracks} files`,
    `${formatBytes(s.bytesDone)} / ${formatBytes(s.bytes)}`,
  ];
  const secs = s.elapsedMs / 1000;
  if (secs >= 1) {
    parts.push(`${formatBytes(Math.round(s.bytesDone / secs))}/s`);
    const left =
      s.bytes > 0 && s.bytesDone > 0
        ? (s.bytes - s.bytesDone) / (s.bytesDone / secs)
        : s.tracksDone > 0
          ? (s.tracks - s.tracksDone) / (s.tracksDone / secs)
          : undefined;
    parts.push(left === undefined ? 'ETA --' : `ETA ${formatDuration(Math.ceil(left))}`);
  }
  if (s.waiting) parts.push(`gateway busy (${s.waiting.status}), waiting ${seconds(s.waiting.ms)}`);
  return parts.join('  ');
}

/** Redraws at most this often (10 times a second), so a fast deploy does not flood the tty. */
export const REDRAW_MS = 100;

export class TerminalProgress implements DeployProgress {
  private tracks = 0;
  private tracksDone = 0;
  private bytes = 0;
  private bytesDone = 0;
  private startedAt = 0;
  private drawnAt = -Infinity;
  private waitUntil = 0;
  private waitStatus = 0;
  private active = false;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly now: () => number = Date.now,
  ) {}

  step(text: string): void {
    this.clear();
    this.stream.write(`${text}\n`);
    if (this.active) this.draw(true);
  }

  startUploads(tracks: number, bytes: number): void {
    this.tracks = tracks;
    this.bytes = bytes;
    this.startedAt = this.now();
    this.active = tracks > 0;
    if (this.active) this.draw(true);
  }

  bytesSent(bytes: number): void {
    this.bytesDone += bytes;
    this.draw(false);
  }

  trackUploaded(_label?: string): void {
    this.tracksDone++;
    this.draw(this.tracksDone === this.tracks);
  }

  waiting(status: number, ms: number): void {
    this.waitUntil = Math.max(this.waitUntil, this.now() + ms);
    this.waitStatus = status;
    this.draw(false);
  }

  endUploads(): void {
    if (!this.active) return;
    this.clear();
    this.active = false;
    this.stream.write(
      `uploaded ${this.tracksDone} ${this.tracksDone === 1 ? 'file' : 'files'} (${formatBytes(this.bytesDone)})\n`,
    );
  }

  private draw(force: boolean): void {
    const now = this.now();
    if (!this.active || (!force && now - this.drawnAt < REDRAW_MS)) return;
    this.drawnAt = now;
    const line = progressLine({
      tracks: this.tracks,
      tracksDone: this.tracksDone,
      bytes: this.bytes,
      bytesDone: this.bytesDone,
      elapsedMs: now - this.startedAt,
      waiting:
        this.waitUntil > now ? { status: this.waitStatus, ms: this.waitUntil - now } : undefined,
    });
    this.stream.write(`\r${line}\x1b[K`);
  }

  private clear(): void {
    if (this.active) this.stream.write('\r\x1b[K');
  }
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : formatDuration(Math.ceil(ms / 1000));
}
