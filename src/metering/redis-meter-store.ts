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

/** The hits on one key in one turn of the event loop. */
interface Batch {
  windowMs: number;
  sum: number;
  waiters: Waiter[];
}

/**
 * Counters in Redis, shared by every gateway that uses the same Redis and prefix.
 *
 * Hits are coalesced per key within one turn of the event loop: the requests read in one poll
 * phase that hit the same key go as one INCRBY of their sum, sent together (ioredis pipelines
 * them) when the turn ends. Each waiter then gets its own running total (`total - sum + its
 * share`): INCRBY is atomic, so the counting stays exact across gateways. Nothing waits for an
 * earlier command: a hot client costs one command per turn, never a queue behind a round trip.
 *
 * Commands never queue while Redis is away (no offline queue, no retries) and time out quickly:
 * the caller (FailOpenMeterStore) serves the request unmetered. ioredis reconnects by itself.
 */
export class RedisMeterStore extends MeterStore {
  readonly redis: Redis;
  private readonly commands: MeterCommands;
  private pending = new Map<string, Batch>();
  private flushScheduled = false;

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

  hit(bucket: string, client: string, amount: number, windowMs: number): Promise<HitResult> {
    const key = `${this.options.keyPrefix}${bucket}:${client}`;
    return new Promise<HitResult>((resolve, reject) => {
      let batch = this.pending.get(key);
      if (batch === undefined) {
        batch = { windowMs, sum: 0, waiters: [] };
        this.pending.set(key, batch);
      }
      batch.sum += amount;
      batch.waiters.push({ amount, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // After the poll phase: every request read in this turn has had its hit queued.
        setImmediate(this.flush);
      }
    });
  }

  stats(): MeterStoreStats {
    const healthy = this.redis.status === 'ready';
    return { backend: 'redis', failures: 0, failOpenHits: 0, healthy };
  }

  override async close(): Promise<void> {
    this.redis.disconnect();
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    const batches = this.pending;
    this.pending = new Map();
    for (const [key, batch] of batches) this.send(key, batch);
  };

  private send(key: string, batch: Batch): void {
    this.commands.tapeMeterHit(key, batch.sum, batch.windowMs).then(
      ([total, msToReset]) => {
        let running = Number(total) - batch.sum;
        for (const waiter of batch.waiters) {
          running += waiter.amount;
          waiter.resolve({ total: running, msToReset: Number(msToReset) });
        }
      },
      (err: unknown) => {
        for (const waiter of batch.waiters) waiter.reject(err);
      },
    );
  }
}
