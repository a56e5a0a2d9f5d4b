/** A count of bytes held, refusing reservations past its limit (no waiting: callers fall back). */
export class ByteBudget {
  private held = 0;

  constructor(readonly limit: number) {}

  get used(): number {
    return this.held;
  }

  reserve(bytes: number): boolean {
    if (this.held + bytes > this.limit) return false;
    this.held += bytes;
    return true;
  }

  release(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }
}
