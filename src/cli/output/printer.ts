import { Injectable } from '@nestjs/common';

/**
 * Where commands write. Results go to stdout (lines or one JSON document), progress and
 * warnings to stderr, so `tape ... --json | jq` and `> file` see only the result. Tests hand in
 * a recording printer; production writes to the process streams.
 */
export abstract class Printer {
  abstract line(text: string): void;
  abstract lines(texts: string[]): void;
  abstract json(value: unknown): void;
  /** Progress and notes for a human (stderr). */
  abstract note(text: string): void;
  /** The stream a progress bar may redraw, or null when stderr is not a terminal. */
  abstract terminal(): NodeJS.WriteStream | null;
}

@Injectable()
export class StdioPrinter extends Printer {
  line(text: string): void {
    process.stdout.write(`${text}\n`);
  }

  lines(texts: string[]): void {
    if (texts.length > 0) process.stdout.write(`${texts.join('\n')}\n`);
  }

  json(value: unknown): void {
    process.stdout.write(`${JSON.stringify(value, jsonReplacer, 2)}\n`);
  }

  note(text: string): void {
    process.stderr.write(`${text}\n`);
  }

  terminal(): NodeJS.WriteStream | null {
    return process.stderr.isTTY ? process.stderr : null;
  }
}

/** BigInt amounts are printed as decimal strings, never as lossy numbers. */
export function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
