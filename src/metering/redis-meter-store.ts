import Redis from 'ioredis';
import { HitResult, MeterStore, MeterStoreStats } from './meter-store';

/**
 * One round trip per hit: add the amount, start the window on the first hit, and read the
 * time left. A refund (negative amount) never creates a key, so it cannot open a window that
 * starts below zero.
 */
const HIT_SCRIPT = `
local amount = tonumber(ARGV[1])
if amount < 0 and redis.call('EXISTS', KEYS[1]) == 0 then
  return {0, tonumber(ARGV[2])}
end
local total = redis.call('INCRBY', KEYS[1], amount)
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return {total, ttl}
`;

interface MeterCommands {
  tapeMeterHit(key: string, amount: number, windowMs: number): Promise<[number, number]>;
}

export interface RedisMeterStoreOptions {
  url: string;
  keyPrefix: string;
  /** Longest wait for one command before it fails (and the request is served unmetered). */
  commandTimeoutMs: number;
  /** Told about connection errors; ioredis emits one per failed reconnect. */
  onConnectionError?: (err: Error) => void;
}

interface Waiter {
  amount: number;
  resolve: (result: HitResult) => void;
  reject: (err: unknown) => void;
}

interface KeyQueue {
  windowMs: number;
  /** Hits that arrived while a command for this key was in flight. */
  next: Waiter[];
}

/**
 * Counters in Redis, shared by every gateway that uses the same Redis and prefix.
 *
 * Hits on one key are coalesced: while a command for a key is in flight, later hits on it wait
 * and go together as one INCRBY of their sum. Each waiter then gets its own running total
 * (`total - sum + its share`), so the counting is exact, and a hot client costs at most one
 * command in flight per gateway instead of one per request. Commands for different keys are
 * pipelined by ioredis.
 *
 * Commands never queue while Redis is away (no offline queue, no retries) and time out quickly:
 * the caller (FailOpenMeterStore) serves the request unmetered. ioredis reconnects by itself.
 */
export class RedisMeterStore extends MeterStore {
  readonly redis: Redis;
  private readonly commands: MeterCommands;
  private readonly inFlight = new Map<string, KeyQueue>();

  constructor(private readonly options: RedisMeterStoreOptions) {
    super();
    this.redis = new Redis(options.url, {
      commandTimeout: options.commandTimeoutMs,
      connectTimeout: Math.max(1000, options.commandTimeoutMs * 10),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      enableAutoPipelining: true,
      retryStrategy: (attempt) => Math.min(100 * attempt, 1000),
      connectionName: 'tape-gateway-metering',
    });
    this.redis.defineCommand('tapeMeterHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.commands = this.redis as unknown as MeterCommands;
    // Without a listener ioredis prints every connection error to stderr as unhandled.
    this.redis.on('error', (err: Error) => options.onConnectionError?.(err));
  }

  hit(key: string, amount: number, windowMs: number): Promise<HitResult> {
    return new Promise<HitResult>((resolve, reject) => {
      const waiter = { amount, resolve, reject };
      const queue = this.inFlight.get(key);
      if (queue) {
        queue.next.push(waiter);
        return;
      }
      this.inFlight.set(key, { windowMs, next: [] });
      this.send(key, windowMs, [waiter]);
    });
  }

  stats(): MeterStoreStats {
    const healthy = this.redis.status === 'ready';
    return { backend: 'redis', failures: 0, failOpenHits: 0, healthy };
  }

  override async close(): Promise<void> {
    this.redis.disconnect();
  }

  private send(key: string, windowMs: number, batch: Waiter[]): void {
    let sum = 0;
    for (const waiter of batch) sum += waiter.amount;
    void this.commands
      .tapeMeterHit(this.options.keyPrefix + key, sum, windowMs)
      .then(
        ([total, msToReset]) => {
          let running = Number(total) - sum;
          for (const waiter of batch) {
            running += waiter.amount;
            waiter.resolve({ total: running, msToReset: Number(msToReset) });
          }
        },
        (err: unknown) => {
          for (const waiter of batch) waiter.reject(err);
        },
      )
      .finally(() => this.sendNext(key));
  }

  private sendNext(key: string): void {
    const queue = this.inFlight.get(key);
    if (!queue || queue.next.length === 0) {
      this.inFlight.delete(key);
      return;
    }
    const batch = queue.next;
    queue.next = [];
    this.send(key, queue.windowMs, batch);
  }
}
