import { formatBytes } from '../output/units';

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
  /** The upload phase is over (the bar is cleared). */
  endUploads(): void;
}

export class PlainProgress implements DeployProgress {
  constructor(private readonly write: (line: string) => void) {}

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

  endUploads(): void {}
}

const BAR_WIDTH = 24;
const REDRAW_MS = 80;

export class TerminalProgress implements DeployProgress {
  private tracks = 0;
  private tracksDone = 0;
  private bytes = 0;
  private bytesDone = 0;
  private drawnAt = 0;
  private active = false;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  step(text: string): void {
    this.clear();
    this.stream.write(`${text}\n`);
    if (this.active) this.draw(true);
  }

  startUploads(tracks: number, bytes: number): void {
    this.tracks = tracks;
    this.bytes = bytes;
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

  endUploads(): void {
    if (!this.active) return;
    this.clear();
    this.active = false;
    this.stream.write(
      `uploaded ${this.tracksDone} ${this.tracksDone === 1 ? 'file' : 'files'} (${formatBytes(this.bytesDone)})\n`,
    );
  }

  private draw(force: boolean): void {
    const now = Date.now();
    if (!this.active || (!force && now - this.drawnAt < REDRAW_MS)) return;
    this.drawnAt = now;
    const fraction =
      this.bytes > 0 ? this.bytesDone / this.bytes : this.tracksDone / Math.max(1, this.tracks);
    const filled = Math.round(Math.min(1, fraction) * BAR_WIDTH);
    const bar = '#'.repeat(filled) + '-'.repeat(BAR_WIDTH - filled);
    const percent = Math.floor(Math.min(1, fraction) * 100);
    this.stream.write(
      `\r[${bar}] ${String(percent).padStart(3)}%  ${this.tracksDone}/${this.tracks} files  ${formatBytes(this.bytesDone)} / ${formatBytes(this.bytes)}\x1b[K`,
    );
  }

  private clear(): void {
    if (this.active) this.stream.write('\r\x1b[K');
  }
}
