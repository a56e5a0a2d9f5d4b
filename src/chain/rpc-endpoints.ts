/** An endpoint that failed is asked after the others for this long. */
const DOWN_MS = 30_000;

/** HTTP statuses that say "this node cannot answer now", not "this request is wrong". */
const UNAVAILABLE = new Set([502, 503, 504]);

/**
 * The RPC endpoints of one chain, tried in order (`chain.rpc_urls`). JSON-RPC over HTTP is
 * stateless and a signed transaction is the same transaction on any node, so a request one node
 * cannot take (connection refused or reset, a 502/503/504) is sent as it is to the next; the
 * node that failed is asked last for DOWN_MS. A node that answers, even with an error, has
 * answered: its answer is the answer.
 */
export class RpcEndpoints {
  private readonly downUntil: number[];

  constructor(
    readonly urls: readonly string[],
    private readonly now: () => number = () => Date.now(),
    private readonly send: typeof fetch = (input, init) => fetch(input, init),
  ) {
    if (urls.length === 0) throw new Error('no RPC endpoint');
    this.downUntil = urls.map(() => 0);
  }

  url(index: number): string {
    return this.urls[index];
  }

  /** The first endpoint not known to be down (the first one when all are). */
  active(): number {
    const now = this.now();
    const up = this.downUntil.findIndex((until) => until <= now);
    return up === -1 ? 0 : up;
  }

  /**
   * Sends one JSON-RPC request: to `preferred` first (the endpoint whose Connection asked),
   * unless it is known to be down, then to the others in order. Rejects with the last failure
   * when none answers.
   */
  async fetch(init: RequestInit, preferred: number): Promise<Response> {
    const order = this.order(preferred);
    let last: unknown;
    for (const index of order) {
      try {
        const res = await this.send(this.urls[index], init);
        if (!UNAVAILABLE.has(res.status) || index === order[order.length - 1]) return res;
        await res.body?.cancel().catch(() => undefined);
        last = new Error(`fetch failed: ${this.urls[index]} answered ${res.status}`);
      } catch (err) {
        last = err;
      }
      this.downUntil[index] = this.now() + DOWN_MS;
    }
    throw last;
  }

  private order(preferred: number): number[] {
    const now = this.now();
    const all = this.urls.map((_, i) => i);
    const up = all.filter((i) => this.downUntil[i] <= now);
    const down = all.filter((i) => this.downUntil[i] > now);
    const first = up.includes(preferred) ? [preferred] : [];
    return [...first, ...up.filter((i) => i !== preferred), ...down];
  }
}
