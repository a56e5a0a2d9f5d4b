/**
 * What `tape network deploy` reports while it runs, on stderr: a redrawn bar for the buffer
 * writes on a terminal, plain lines otherwise (CI logs, pipes), so stdout keeps the result.
 */
export interface ProgramWriteProgress {
  /** A phase line: "creating buffer …". */
  step(text: string): void;
  /** Buffer writes start: `total` chunks, `done` of them already in the buffer. */
  startWrites(total: number, done: number): void;
  chunkWritten(): void;
  endWrites(): void;
}

/** Plain lines: one when writes start, one every tenth of them, one at the end. */
export class PlainWriteProgress implements ProgramWriteProgress {
  private total = 0;
  private done = 0;
  private reported = 0;

  constructor(private readonly write: (line: string) => void) {}

  step(text: string): void {
    this.write(text);
  }

  startWrites(total: number, done: number): void {
    this.total = total;
    this.done = this.reported = done;
    this.write(
      done > 0
        ? `resuming: ${done} of ${total} chunks already in the buffer, writing ${total - done}`
        : `writing ${total} chunks`,
    );
  }

  chunkWritten(): void {
    this.done++;
    const step = Math.max(1, Math.ceil(this.total / 10));
    if (this.done - this.reported >= step || this.done === this.total) {
      this.reported = this.done;
      this.write(`written ${this.done}/${this.total} chunks`);
    }
  }

  endWrites(): void {}
}

const BAR_WIDTH = 30;

/** A bar redrawn in place on a terminal, cleared when the writes end. */
export class TerminalWriteProgress implements ProgramWriteProgress {
  private total = 0;
  private done = 0;
  private active = false;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  step(text: string): void {
    if (this.active) this.stream.write('\r\x1b[K');
    this.stream.write(`${text}\n`);
    if (this.active) this.draw();
  }

  startWrites(total: number, done: number): void {
    this.total = total;
    this.done = done;
    if (done > 0) this.step(`resuming: ${done} of ${total} chunks already in the buffer`);
    this.active = true;
    this.draw();
  }

  chunkWritten(): void {
    this.done++;
    this.draw();
  }

  endWrites(): void {
    if (!this.active) return;
    this.active = false;
    this.stream.write(`\r\x1b[Kwritten ${this.done}/${this.total} chunks\n`);
  }

  private draw(): void {
    const fraction = this.total > 0 ? this.done / this.total : 1;
    const filled = Math.round(fraction * BAR_WIDTH);
    this.stream.write(
      `\r[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}%  ${this.done}/${this.total} chunks\x1b[K`,
    );
  }
}
