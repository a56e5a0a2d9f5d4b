import type Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { commitmentToHex } from './commitment';
import { TrackReferences } from './track-references';
import type {
  ClaimLimits,
  ClaimOutcome,
  ReferencedBlob,
  TrackClaim,
  TrackReference,
  TrackRole,
} from './track-store';

/**
 * KEYS: refs:<hex>, the index, segs:<owner>, tape:<tape>. ARGV: field, value, role, hex, size,
 * max owner segment bytes (-1: none), max tape bytes (-1: none).
 * 1 inserted, 0 refreshed, -1 refused (the owner's segments or the tape's blobs would pass max).
 */
const CLAIM_SCRIPT = `
local exists = redis.call('HEXISTS', KEYS[1], ARGV[1])
if exists == 0 and ARGV[3] == 'segment' and tonumber(ARGV[6]) >= 0 then
  local total = 0
  local values = redis.call('HGETALL', KEYS[3])
  for i = 1, #values, 2 do
    if values[i] ~= ARGV[4] then total = total + tonumber(values[i + 1]) end
  end
  if total + tonumber(ARGV[5]) > tonumber(ARGV[6]) then return -1 end
end
if exists == 0 and tonumber(ARGV[7]) >= 0 and redis.call('HEXISTS', KEYS[4], ARGV[4]) == 0 then
  local total = 0
  for _, size in ipairs(redis.call('HVALS', KEYS[4])) do total = total + tonumber(size) end
  if total + tonumber(ARGV[5]) > tonumber(ARGV[7]) then return -1 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], 0, ARGV[4])
redis.call('HSET', KEYS[4], ARGV[4], ARGV[5])
if ARGV[3] == 'segment' then redis.call('HSET', KEYS[3], ARGV[4], ARGV[5]) end
if exists == 0 then return 1 end
return 0
`;

/**
 * Removes one reference. KEYS as CLAIM. ARGV: field, role, hex, mode, at, tape. Mode 'exact':
 * only when recorded exactly at `at` (unclaim); 'before': only when recorded before `at` (the
 * collector). The blob leaves tape:<tape> with the tape's last reference to it.
 */
const DROP_SCRIPT = `
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value then return 0 end
local recorded = tonumber(string.match(value, '([^|]*)$'))
local at = tonumber(ARGV[5])
if ARGV[4] == 'exact' and recorded ~= at then return 0 end
if ARGV[4] == 'before' and recorded >= at then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
if ARGV[2] == 'segment' then redis.call('HDEL', KEYS[3], ARGV[3]) end
if redis.call('HLEN', KEYS[1]) == 0 then redis.call('ZREM', KEYS[2], ARGV[3]) end
local prefix = ARGV[6] .. '|'
local still = false
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do
  if string.sub(v, 1, #prefix) == prefix then still = true break end
end
if not still then redis.call('HDEL', KEYS[4], ARGV[3]) end
return 1
`;

/** KEYS: refs:<hex>, deleting:<hex>. ARGV: token, ttl ms. 1 fenced, 0 not. */
const FENCE_SCRIPT = `
if redis.call('HLEN', KEYS[1]) > 0 then return 0 end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0
`;

const UNFENCE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

interface ReferenceCommands {
  tapeRefClaim(a: string, b: string, c: string, d: string, ...argv: string[]): Promise<number>;
  tapeRefDrop(a: string, b: string, c: string, d: string, ...argv: string[]): Promise<number>;
  tapeRefFence(a: string, b: string, token: string, ttl: string): Promise<number>;
  tapeRefUnfence(key: string, token: string): Promise<number>;
}

const AWAIT_POLL_MS = 50;

/**
 * Every writer's references in the shared Redis (`storage.shared.redis_url`):
 *
 *   <prefix>refs                 sorted set of referenced commitments (hex, lexicographic =
 *                                byte order): the collector's cursor walks it
 *   <prefix>refs:<hex>           hash: "<owner>|<role>" -> "<tape>|<size>|<recorded ms>"
 *   <prefix>segs:<owner>         hash: segment hex -> size (the owner's segment bytes, for the
 *                                upload limit)
 *   <prefix>tape:<tape>          hash: hex -> size of every blob the tape's owners reference
 *                                (the tape's bytes in the store, and its targeted GC check)
 *   <prefix>deleting:<hex>       the deletion fence (set only while no reference exists)
 *
 * Each change is one Lua script, so a claim and the collector's check never interleave.
 */
export class RedisTrackReferences extends TrackReferences {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    /** Longest a writer waits for a deletion in progress (the fence's own lifetime). */
    private readonly maxWaitMs = 5 * 60 * 1000,
  ) {
    super();
    redis.defineCommand('tapeRefClaim', { numberOfKeys: 4, lua: CLAIM_SCRIPT });
    redis.defineCommand('tapeRefDrop', { numberOfKeys: 4, lua: DROP_SCRIPT });
    redis.defineCommand('tapeRefFence', { numberOfKeys: 2, lua: FENCE_SCRIPT });
    redis.defineCommand('tapeRefUnfence', { numberOfKeys: 1, lua: UNFENCE_SCRIPT });
  }

  async claim(claim: TrackClaim, limits: ClaimLimits = {}): Promise<ClaimOutcome> {
    const now = Date.now();
    const result = await this.commands.tapeRefClaim(...this.claimArgs(claim, limits, now));
    if (result === -1) return { accepted: false, inserted: false, recordedAt: now };
    return { accepted: true, inserted: result === 1, recordedAt: now };
  }

  /** One pipeline: one round trip for a version's thousands of tracks. */
  async claimMany(claims: TrackClaim[]): Promise<void> {
    const now = Date.now();
    const pipeline = this.redis.pipeline() as unknown as ReferenceCommands & {
      exec(): Promise<[Error | null, unknown][] | null>;
    };
    for (const claim of claims) void pipeline.tapeRefClaim(...this.claimArgs(claim, {}, now));
    for (const [err] of (await pipeline.exec()) ?? []) if (err) throw err;
  }

  async referencesOfTape(tape: string): Promise<ReferencedBlob[]> {
    const hexes = (await this.redis.hkeys(this.tapeKey(tape))).sort();
    return (await this.referencesOf(hexes)).map((blob) => ({
      ...blob,
      references: blob.references.filter((r) => r.tape === tape),
    }));
  }

  private claimArgs(
    claim: TrackClaim,
    limits: ClaimLimits,
    now: number,
  ): [string, string, string, string, ...string[]] {
    const hex = commitmentToHex(claim.commitment);
    return [
      this.refsKey(hex),
      this.indexKey,
      this.segmentsKey(claim.track),
      this.tapeKey(claim.tape),
      field(claim.track, claim.role),
      `${claim.tape}|${claim.size}|${now}`,
      claim.role,
      hex,
      String(claim.size),
      String(limits.maxOwnerSegmentBytes ?? -1),
      String(limits.maxTapeBytes ?? -1),
    ];
  }

  async unclaim(claim: TrackClaim, recordedAt: number): Promise<void> {
    await this.dropOne(claim.commitment, claim, 'exact', recordedAt);
  }

  async list(after: Buffer | undefined, limit: number): Promise<ReferencedBlob[]> {
    const from = after ? `(${commitmentToHex(after)}` : '-';
    const hexes = await this.redis.zrangebylex(this.indexKey, from, '+', 'LIMIT', 0, limit);
    return this.referencesOf(hexes);
  }

  private async referencesOf(hexes: string[]): Promise<ReferencedBlob[]> {
    const pipeline = this.redis.pipeline();
    for (const hex of hexes) pipeline.hgetall(this.refsKey(hex));
    const rows = (await pipeline.exec()) ?? [];
    return hexes.map((hex, i) => {
      const [err, value] = rows[i] ?? [];
      if (err) throw err;
      return {
        commitment: Buffer.from(hex, 'hex'),
        references: Object.entries((value ?? {}) as Record<string, string>).map(([f, v]) =>
          toReference(f, v),
        ),
      };
    });
  }

  async drop(commitment: Buffer, references: TrackReference[], before: number): Promise<void> {
    for (const r of references) await this.dropOne(commitment, r, 'before', before);
  }

  async fenceDeletion(commitment: Buffer, ttlMs: number): Promise<string | null> {
    const hex = commitmentToHex(commitment);
    const token = randomBytes(12).toString('hex');
    const fenced = await this.commands.tapeRefFence(
      this.refsKey(hex),
      this.fenceKey(hex),
      token,
      String(ttlMs),
    );
    return fenced === 1 ? token : null;
  }

  async endDeletion(commitment: Buffer, token: string): Promise<void> {
    await this.commands.tapeRefUnfence(this.fenceKey(commitmentToHex(commitment)), token);
  }

  async awaitDeletion(commitment: Buffer): Promise<void> {
    const key = this.fenceKey(commitmentToHex(commitment));
    const deadline = Date.now() + this.maxWaitMs;
    while ((await this.redis.exists(key)) === 1) {
      if (Date.now() > deadline) throw new Error('a deletion of this track has not ended');
      await new Promise((r) => setTimeout(r, AWAIT_POLL_MS));
    }
  }

  /** The connection belongs to SharedState. */
  async close(): Promise<void> {}

  private async dropOne(
    commitment: Buffer,
    ref: { track: string; role: TrackRole; tape: string },
    mode: 'exact' | 'before',
    at: number,
  ): Promise<void> {
    const hex = commitmentToHex(commitment);
    await this.commands.tapeRefDrop(
      this.refsKey(hex),
      this.indexKey,
      this.segmentsKey(ref.track),
      this.tapeKey(ref.tape),
      field(ref.track, ref.role),
      ref.role,
      hex,
      mode,
      String(at),
      ref.tape,
    );
  }

  private get commands(): ReferenceCommands {
    return this.redis as unknown as ReferenceCommands;
  }

  private get indexKey(): string {
    return `${this.prefix}refs`;
  }

  private refsKey(hex: string): string {
    return `${this.prefix}refs:${hex}`;
  }

  private segmentsKey(owner: string): string {
    return `${this.prefix}segs:${owner}`;
  }

  private tapeKey(tape: string): string {
    return `${this.prefix}tape:${tape}`;
  }

  private fenceKey(hex: string): string {
    return `${this.prefix}deleting:${hex}`;
  }
}

function field(owner: string, role: TrackRole): string {
  return `${owner}|${role}`;
}

function toReference(fieldName: string, value: string): TrackReference {
  const [track, role] = fieldName.split('|');
  const [tape, size, recordedAt] = value.split('|');
  return {
    track,
    tape,
    role: role === 'segment' ? 'segment' : 'track',
    size: Number(size),
    recordedAt: Number(recordedAt),
  };
}
