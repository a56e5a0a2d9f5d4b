import { Printer } from './printer';

/** A printer that keeps what commands print, for specs and embedding. */
export class RecordingPrinter extends Printer {
  readonly out: string[] = [];
  readonly notes: string[] = [];

  line(text: string): void {
    this.out.push(text);
  }

  lines(texts: string[]): void {
    this.out.push(...texts);
  }

  json(value: unknown): void {
    this.out.push(
      JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2),
    );
  }

  note(text: string): void {
    this.notes.push(text);
  }

  terminal(): NodeJS.WriteStream | null {
    return null;
  }
}
