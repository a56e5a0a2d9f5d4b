import type Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { S3BackendSlowDownError } from '../s3-backend';
import { SpoolHold, tapeShareMessage } from './spool-budget';
import { SpoolLedger } from './spool-ledger';

/** Frees one hold (a local function of the scripts below). KEYS: holds, expiring, total. */
const FREE = `
local function free(prefix, id)
  local value = redis.call('HGET', KEYS[1], id)
  if not value then return 0 end
  local tape, bytes = string.match(value, '^(.*)|(%d+)$')
  redis.call('DECRBY', KEYS[3], bytes)
  if redis.call('DECRBY', prefix .. 'spool:tape:' .. tape, bytes) <= 0 then
    redis.call('DEL', prefix .. 'spool:tape:' .. tape)
  end
  redis.call('HDEL', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
  return 1
end
local function add(prefix, id, tape, bytes, expires)
  redis.call('HSET', KEYS[1], id, tape .. '|' .. bytes)
  redis.call('INCRBY', KEYS[3], bytes)
  redis.call('INCRBY', prefix .. 'spool:tape:' .. tape, bytes)
  if tonumber(expires) > 0 then redis.call('ZADD', KEYS[2], expires, id) end
end
`;

/**
 * ARGV: prefix, now, id, tape, bytes, expires, limit, tape limit. Frees holds whose body outlived
 * its request first (a replica that died mid-body), then reserves; -1 when past the gateways'
 * limit, -2 past the tape's share (the tape's bytes held are then in the second reply).
 */
const RESERVE_SCRIPT = `${FREE}
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[2], 'LIMIT', 0, 100)
for _, id in ipairs(expired) do free(ARGV[1], id) end
local tapeHeld = tonumber(redis.call('GET', ARGV[1] .. 'spool:tape:' .. ARGV[4]) or '0')
if tapeHeld + tonumber(ARGV[5]) > tonumber(ARGV[8]) then return {-2, tapeHeld} end
local total = tonumber(redis.call('GET', KEYS[3]) or '0')
if total + tonumber(ARGV[5]) > tonumber(ARGV[7]) then return {-1, total} end
add(ARGV[1], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
return {0, total + tonumber(ARGV[5])}
`;

/** ARGV: prefix, id. */
const RELEASE_SCRIPT = `${FREE}
return free(ARGV[1], ARGV[2])
`;

/**
 * ARGV: prefix, transient id, kept id, tape, bytes. A stored part's hold: frees the body's
 * transient hold and the previous part of that number, and holds the part's bytes without
 * expiry (until its upload is completed, aborted or expires).
 */
const KEEP_SCRIPT = `${FREE}
free(ARGV[1], ARGV[2])
free(ARGV[1], ARGV[3])
add(ARGV[1], ARGV[3], ARGV[4], ARGV[5], '0')
return 1
`;

interface LedgerCommands {
  tapeSpoolReserve(a: string, b: string, c: string, ...argv: string[]): Promise<[number, number]>;
  tapeSpoolRelease(a: string, b: string, c: string, ...argv: string[]): Promise<number>;
  tapeSpoolKeep(a: string, b: string, c: string, ...argv: string[]): Promise<number>;
}

/** A hold in the shared ledger: its id names it in Redis. */
export interface SharedSpoolHold extends SpoolHold {
  readonly id: string;
}

/**
 * The spool budget of every replica together, in the shared Redis:
 *
 *   <prefix>spool:total        bytes held over all tapes and replicas
 *   <prefix>spool:tape:<tape>  bytes held for one tape
 *   <prefix>spool:holds        hash: hold id -> "<tape>|<bytes>"
 *   <prefix>spool:expiring     sorted set: holds of bodies being received, by when they lapse
 *
 * A body's hold lapses `holdMs` (the listener's request timeout) after it was taken, so a
 * replica that dies mid-body gives its holds back; a stored part's hold (`part:<upload>:<n>`)
 * lasts until its upload is completed, aborted or removed (expired, idle, its tape ended),
 * whichever replica does it. One tape holds at most `tapeLimit` of the `limit`.
 */
export class SharedSpoolLedger extends SpoolLedger {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limit: number,
    private readonly tapeLimit: number,
    private readonly holdMs: number,
    private readonly onError: (err: Error) => void = () => undefined,
  ) {
    super();
    const keys = 3;
    redis.defineCommand('tapeSpoolReserve', { numberOfKeys: keys, lua: RESERVE_SCRIPT });
    redis.defineCommand('tapeSpoolRelease', { numberOfKeys: keys, lua: RELEASE_SCRIPT });
    redis.defineCommand('tapeSpoolKeep', { numberOfKeys: keys, lua: KEEP_SCRIPT });
  }

  async reserve(tapeAddress: string, bytes: number): Promise<SharedSpoolHold> {
    const id = `body:${randomBytes(12).toString('hex')}`;
    const now = Date.now();
    const [outcome, held] = await this.commands.tapeSpoolReserve(
      ...this.keys,
      this.prefix,
      String(now),
      id,
      tapeAddress,
      String(bytes),
      String(now + this.holdMs),
      String(this.limit),
      String(this.tapeLimit),
    );
    if (outcome === -2) throw new S3BackendSlowDownError(tapeShareMessage(held, this.tapeLimit));
    if (outcome === -1) {
      throw new S3BackendSlowDownError(
        `the gateways hold ${held} of their ${this.limit} bytes for uploads in progress`,
      );
    }
    return this.handle(id, tapeAddress, bytes);
  }

  async tapeBytes(tapeAddress: string): Promise<number> {
    return Number((await this.redis.get(`${this.prefix}spool:tape:${tapeAddress}`)) ?? 0);
  }

  async totalBytes(): Promise<number> {
    return Number((await this.redis.get(`${this.prefix}spool:total`)) ?? 0);
  }

  /** Turns a body's hold into the stored part's (`bytes`: what was received). */
  async keepAsPart(hold: SpoolHold, uploadId: string, partNumber: number, bytes: number) {
    const id = (hold as SharedSpoolHold).id;
    await this.commands.tapeSpoolKeep(
      ...this.keys,
      this.prefix,
      id,
      partHoldId(uploadId, partNumber),
      hold.tapeAddress,
      String(bytes),
    );
  }

  /**
   * Holds `bytes` for the part of this number again, as `keepAsPart` did when it was stored: for
   * a part kept whose record was then refused, while the earlier part of its number stays.
   */
  async restorePart(
    tapeAddress: string,
    uploadId: string,
    partNumber: number,
    bytes: number,
  ): Promise<void> {
    // The keep script with no body hold to free: the part's hold replaced by `bytes`.
    await this.commands.tapeSpoolKeep(
      ...this.keys,
      this.prefix,
      '',
      partHoldId(uploadId, partNumber),
      tapeAddress,
      String(bytes),
    );
  }

  async releasePart(uploadId: string, partNumber: number): Promise<void> {
    await this.releaseId(partHoldId(uploadId, partNumber));
  }

  private async releaseId(id: string): Promise<void> {
    await this.commands.tapeSpoolRelease(...this.keys, this.prefix, id);
  }

  private handle(id: string, tapeAddress: string, bytes: number): SharedSpoolHold {
    let released = false;
    return {
      id,
      tapeAddress,
      bytes,
      release: () => {
        if (released) return;
        released = true;
        // A release that fails is given back when the hold lapses (holdMs).
        this.releaseId(id).catch((err: Error) => this.onError(err));
      },
    };
  }

  private get keys(): [string, string, string] {
    return [
      `${this.prefix}spool:holds`,
      `${this.prefix}spool:expiring`,
      `${this.prefix}spool:total`,
    ];
  }

  private get commands(): LedgerCommands {
    return this.redis as unknown as LedgerCommands;
  }
}

function partHoldId(uploadId: string, partNumber: number): string {
  return `part:${uploadId}:${partNumber}`;
}
