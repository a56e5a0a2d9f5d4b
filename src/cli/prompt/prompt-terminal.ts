import { Injectable } from '@nestjs/common';
import { createInterface } from 'node:readline';

/**
 * Where a command asks a person a question: stdin for the answer, stderr for the question (stdout
 * stays the result). A port, so specs hand in streams of their own.
 */
export abstract class PromptTerminal {
  /** True when someone can answer: stdin and stderr are both terminals. */
  abstract interactive(): boolean;
  /** Lines for the person (stderr). */
  abstract show(lines: string[]): void;
  /** Asks and resolves with the answer's line ('' when the input ends). */
  abstract ask(question: string): Promise<string>;
}

@Injectable()
export class StdioPromptTerminal extends PromptTerminal {
  constructor(
    private readonly input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
    private readonly output: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr,
  ) {
    super();
  }

  interactive(): boolean {
    return this.input.isTTY === true && this.output.isTTY === true;
  }

  show(lines: string[]): void {
    if (lines.length > 0) this.output.write(`${lines.join('\n')}\n`);
  }

  ask(question: string): Promise<string> {
    const rl = createInterface({ input: this.input, output: this.output, terminal: false });
    this.output.write(question);
    return new Promise((resolve) => {
      let answered = false;
      rl.once('line', (line) => {
        answered = true;
        rl.close();
        resolve(line);
      });
      rl.once('close', () => {
        if (!answered) resolve('');
      });
    });
  }
}
