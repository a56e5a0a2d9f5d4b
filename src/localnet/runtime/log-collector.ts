/** Solana truncates a transaction's logs at 10,000 bytes and says so once. */
const LOG_BYTES_LIMIT = 10_000;

export class LogCollector {
  readonly lines: string[] = [];
  private bytes = 0;
  private truncated = false;

  push(line: string): void {
    if (this.truncated) return;
    this.bytes += line.length;
    if (this.bytes > LOG_BYTES_LIMIT) {
      this.truncated = true;
      this.lines.push('Log truncated');
      return;
    }
    this.lines.push(line);
  }
}
