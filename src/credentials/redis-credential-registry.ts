import type Redis from 'ioredis';
import { CredentialCipher, SealedSecret, StoredCredential } from './credential-cipher';
import {
  ACCESS_KEY_ID_PATTERN,
  CredentialSummary,
  IssuedCredential,
  RevokeOutcome,
} from './credential-registry';
import { SealedCredentialRegistry } from './sealed-credential-registry';

/** Creates the credential unless its id exists (1), else 0. */
const ISSUE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'tape', ARGV[1], 'iv', ARGV[2], 'tag', ARGV[3], 'secret', ARGV[4], 'created_at', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[6])
return 1
`;

/** Sets `revoked_at` once: 1 revoked, 0 already revoked, -1 unknown. */
const REVOKE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HEXISTS', KEYS[1], 'revoked_at') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'revoked_at', ARGV[1])
return 1
`;

interface CredentialCommands {
  tapeIssueCredential(key: string, index: string, ...args: string[]): Promise<number>;
  tapeRevokeCredential(key: string, at: string): Promise<number>;
}

/**
 * Credentials in the replicas' shared Redis (`storage.shared.redis_url`):
 *
 *   <prefix>s3-credential:<access key id>   hash: tape, iv, tag, secret (base64), created_at,
 *                                           revoked_at (ms; absent while valid)
 *   <prefix>s3-credentials                  sorted set of ids by created_at (for list)
 *
 * Every lookup reads Redis (one HGETALL on the request path, nothing cached), so an issue or a
 * revocation made through any replica or operator command applies to every replica's next
 * request. Secrets are sealed with the operator key exactly as in SQLite: a copy of the Redis
 * data without the key file reveals none of them.
 */
export class RedisCredentialRegistry extends SealedCredentialRegistry {
  constructor(
    private readonly redis: Redis,
    cipher: CredentialCipher,
    private readonly prefix: string,
    /** Closes the connection on close() (the CLI's own; not the gateway's shared one). */
    private readonly ownsConnection = false,
  ) {
    super(cipher);
    this.redis.defineCommand('tapeIssueCredential', { numberOfKeys: 2, lua: ISSUE_SCRIPT });
    this.redis.defineCommand('tapeRevokeCredential', { numberOfKeys: 1, lua: REVOKE_SCRIPT });
  }

  async list(): Promise<CredentialSummary[]> {
    const ids = await this.redis.zrange(this.indexKey, '0', '-1');
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hmget(this.key(id), 'tape', 'created_at', 'revoked_at');
    const rows = (await pipeline.exec()) ?? [];
    const summaries: CredentialSummary[] = [];
    rows.forEach(([err, value], i) => {
      const [tape, createdAt, revokedAt] = (value ?? []) as (string | null)[];
      if (err || !tape || !createdAt) return;
      summaries.push({
        accessKeyId: ids[i],
        tapeAddress: tape,
        createdAt: new Date(Number(createdAt)),
        revokedAt: revokedAt ? new Date(Number(revokedAt)) : null,
      });
    });
    return summaries;
  }

  async revoke(accessKeyId: string, now = new Date()): Promise<RevokeOutcome> {
    if (!ACCESS_KEY_ID_PATTERN.test(accessKeyId)) return 'unknown';
    const outcome = await this.commands.tapeRevokeCredential(
      this.key(accessKeyId),
      String(now.getTime()),
    );
    return outcome === 1 ? 'revoked' : outcome === 0 ? 'already revoked' : 'unknown';
  }

  async close(): Promise<void> {
    if (this.ownsConnection) this.redis.disconnect();
  }

  protected async store(issued: IssuedCredential, sealed: SealedSecret): Promise<void> {
    const { accessKeyId } = issued;
    const created = await this.commands.tapeIssueCredential(
      this.key(accessKeyId),
      this.indexKey,
      issued.tapeAddress,
      sealed.iv.toString('base64'),
      sealed.tag.toString('base64'),
      sealed.ciphertext.toString('base64'),
      String(issued.createdAt.getTime()),
      accessKeyId,
    );
    if (created !== 1) throw new Error(`access key id ${accessKeyId} already issued`);
  }

  protected async stored(accessKeyId: string): Promise<StoredCredential | null> {
    const row = await this.redis.hgetall(this.key(accessKeyId));
    if (!row.tape || !row.iv || !row.tag || !row.secret) return null;
    return {
      sealed: {
        iv: Buffer.from(row.iv, 'base64'),
        tag: Buffer.from(row.tag, 'base64'),
        ciphertext: Buffer.from(row.secret, 'base64'),
      },
      tape: row.tape,
      revoked: row.revoked_at !== undefined,
    };
  }

  private get commands(): CredentialCommands {
    return this.redis as unknown as CredentialCommands;
  }

  private get indexKey(): string {
    return `${this.prefix}s3-credentials`;
  }

  private key(accessKeyId: string): string {
    return `${this.prefix}s3-credential:${accessKeyId}`;
  }
}
