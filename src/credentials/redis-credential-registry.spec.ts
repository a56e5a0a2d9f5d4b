import Redis from 'ioredis';
import { startRedis, RedisServer } from '../../test/support/processes/metering-redis';
import { CredentialCipher } from './credential-cipher';
import { RedisCredentialRegistry } from './redis-credential-registry';

const TAPE = 'GegjFWW8SVeSTqsyo9ZkEzCQY2mY55T2AUazk4kjfYyT';

describe('RedisCredentialRegistry (a real redis-server)', () => {
  let server: RedisServer;
  const connections: Redis[] = [];
  const cipher = CredentialCipher.fromKey(Buffer.alloc(32, 7));
  const open = (prefix = 'test:') => {
    const redis = new Redis(server.url);
    connections.push(redis);
    return { redis, registry: new RedisCredentialRegistry(redis, cipher, prefix) };
  };

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    connections.forEach((c) => c.disconnect());
    await server?.stop();
  });

  it('a credential issued through one replica is found, listed and revoked through another', async () => {
    const a = open().registry;
    const b = open().registry;
    const issued = await a.issue(TAPE);
    expect(await b.find(issued.accessKeyId)).toEqual({
      accessKeyId: issued.accessKeyId,
      secretAccessKey: issued.secretAccessKey,
      tapeAddress: TAPE,
      revoked: false,
    });
    expect((await b.list()).map((c) => c.accessKeyId)).toContain(issued.accessKeyId);
    expect(await b.revoke(issued.accessKeyId)).toBe('revoked');
    expect((await a.find(issued.accessKeyId))?.revoked).toBe(true);
    expect(await a.revoke(issued.accessKeyId)).toBe('already revoked');
    expect(await a.revoke('TKAAAAAAAAAAAAAAAAAA')).toBe('unknown');
    const listed = (await a.list()).find((c) => c.accessKeyId === issued.accessKeyId);
    expect(listed?.revokedAt).toBeInstanceOf(Date);
  });

  it('keeps secrets sealed at rest: the stored hash holds no plain secret, another key opens none', async () => {
    const { redis, registry } = open('sealed:');
    const issued = await registry.issue(TAPE);
    const raw = await redis.hgetall(`sealed:s3-credential:${issued.accessKeyId}`);
    expect(JSON.stringify(raw)).not.toContain(issued.secretAccessKey);
    const other = new RedisCredentialRegistry(
      redis,
      CredentialCipher.fromKey(Buffer.alloc(32, 8)),
      'sealed:',
    );
    await expect(other.find(issued.accessKeyId)).rejects.toThrow(/unable to authenticate data/);
  });

  it('answers null for an id never issued or of the wrong shape (no lookup)', async () => {
    const { registry } = open();
    expect(await registry.find('TKBBBBBBBBBBBBBBBBBB')).toBeNull();
    expect(await registry.find('../../etc')).toBeNull();
  });
});
