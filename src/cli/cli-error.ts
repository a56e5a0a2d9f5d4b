/**
 * An error meant for the person at the terminal: its message is the whole story, printed as one
 * line on stderr (`error: <message>`), and the process exits non-zero. Anything else that
 * escapes a command is described by `describeError` (src/cli/output/error-line.ts).
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
