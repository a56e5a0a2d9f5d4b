/**
 * A token bucket: `capacity` tokens at most, refilled continuously at `perMinute`. `take` spends
 * one if there is one. In memory and per process: the ask endpoint is asked by the Caddy in front
 * of this gateway, so each gateway bounds what its own Caddy can make it look up.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly capacity: number,
    private readonly perMinute: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = capacity;
    this.updatedAt = now();
  }

  take(): boolean {
    const now = this.now();
    const refilled = ((now - this.updatedAt) / 60_000) * this.perMinute;
    this.tokens = Math.min(this.capacity, this.tokens + Math.max(0, refilled));
    this.updatedAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
