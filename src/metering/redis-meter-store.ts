import Redis from 'ioredis';
import { LocalLead } from './local-lead';
import { HitResult, MeterStore, MeterStoreStats } from './meter-store';

/**
 * One round trip per command: add the amount, start the window on the first hit, and read the
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
  /** > 0: answer hot keys locally and send their hits every this many ms (see LocalLead). */
  syncMs?: number;
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
 * With `syncMs` > 0, hot keys skip even that and are answered locally (LocalLead); only new,
 * idle or out-of-date keys come this way.
 *
 * Commands never queue while Redis is away (no offline queue, no retries) and time out quickly:
 * the caller (FailOpenMeterStore) serves the request unmetered. ioredis reconnects by itself.
 */
export class RedisMeterStore extends MeterStore {
  readonly redis: Redis;
  private readonly commands: MeterCommands;
  private pending = new Map<string, Batch>();
  private flushScheduled = false;
  private readonly lead: LocalLead | undefined;

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
    if (options.syncMs) {
      this.lead = new LocalLead(options.syncMs, (key, amount, windowMs) =>
        this.commands.tapeMeterHit(key, amount, windowMs),
      );
    }
  }

  hit(
    bucket: string,
    client: string,
    amount: number,
    windowMs: number,
  ): HitResult | Promise<HitResult> {
    const key = `${this.options.keyPrefix}${bucket}:${client}`;
    const local = this.lead?.tryHit(key, amount);
    if (local !== undefined) return local;
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

  /**
   * Resolves true once connected, or false after `timeoutMs`; never rejects. Start-up waits on it
   * briefly so the first requests after a deploy are counted, without depending on Redis.
   */
  async waitUntilReady(timeoutMs: number): Promise<boolean> {
    if (this.redis.status === 'ready') return true;
    return new Promise<boolean>((resolve) => {
      const done = (ready: boolean) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        resolve(ready);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.redis.once('ready', onReady);
    });
  }

  stats(): MeterStoreStats {
    const healthy = this.redis.status === 'ready';
    return { backend: 'redis', failures: 0, failOpenHits: 0, healthy };
  }

  override async close(): Promise<void> {
    this.lead?.close();
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
        // Hits this gateway answered locally and has not had counted yet belong in the total too.
        const owed = this.lead?.learn(key, batch.windowMs, Number(total), Number(msToReset)) ?? 0;
        let running = Number(total) + owed - batch.sum;
        for (const waiter of batch.waiters) {
          running += waiter.amount;
          waiter.resolve({ total: running, msToReset: Number(msToReset) });
        }
      },
      (err: unknown) => {
        this.lead?.forget(key);
        for (const waiter of batch.waiters) waiter.reject(err);
      },
    );
  }
}
