import { Injectable } from '@nestjs/common';

/**
 * What Ctrl-C means to the command that is running. src/cli.ts owns the SIGINT exit (130, once
 * stdout and stderr are flushed); a command whose work leaves something half done names, for
 * that work's duration, the line that tells the user where things stand and how to go on.
 */
@Injectable()
export class InterruptNotice {
  private notes: string[] = [];

  /** The line for an interrupt now; undefined when no work in progress has one. */
  get current(): string | undefined {
    return this.notes[this.notes.length - 1];
  }

  /** Runs `work` with `note` as what an interrupt means; the innermost work's note wins. */
  async during<T>(note: string, work: () => Promise<T>): Promise<T> {
    this.notes.push(note);
    try {
      return await work();
    } finally {
      this.notes.splice(this.notes.lastIndexOf(note), 1);
    }
  }
}
