import { Keypair, PublicKey } from '@solana/web3.js';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import type { ChainReader } from '../../chain/chain-reader';
import { GatewayIdentity } from '../../chain/gateway-identity';
import { StorageConfig } from '../../config/storage.config';
import { startRedis, RedisServer } from '../../../test/support/processes/metering-redis';
import { bodyOf, newTestStore } from '../../../test/support/fixtures/tracks';
import { commitmentOfBuffer } from '../commitment';
import { RedisGcLease } from './gc-lease';
import { TrackGarbageCollector } from './track-gc.service';
import { versionOwner } from './version-owner';

/** A chain whose reads take a while (so two passes would overlap) and where no tape lives. */
const slowChain = {
  async getTapes(addresses: PublicKey[]) {
    await new Promise((r) => setTimeout(r, 300));
    return addresses.map(() => null);
  },
  async networkConfig() {
    return { genesisTime: 1_600_000_000, epochDurationSecs: 10 };
  },
  async chainTime() {
    return Math.floor(Date.now() / 1000);
  },
} as unknown as ChainReader;

describe('RedisGcLease (a real redis-server): one collector pass at a time over all replicas', () => {
  let server: RedisServer;
  const connections: Redis[] = [];
  let n = 0;
  const replicas = (ttlMs: number) => {
    const prefix = `gc${n++}:`;
    return [0, 1].map(() => {
      const redis = new Redis(server.url);
      connections.push(redis);
      return new RedisGcLease(redis, prefix, ttlMs);
    });
  };

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    connections.forEach((c) => c.disconnect());
    await server?.stop();
  });

  it('refuses the lease to a second replica while the first holds it, and grants it once released', async () => {
    const [a, b] = replicas(5000);
    const held = await a.acquire();
    expect(held?.held()).toBe(true);
    expect(await b.acquire()).toBeNull();
    await held!.release();
    expect(held!.held()).toBe(false);
    const next = await b.acquire();
    expect(next).not.toBeNull();
    await next!.release();
  });

  it('is renewed while its holder runs, so a long pass keeps it past its ttl', async () => {
    const [a, b] = replicas(1000);
    const held = await a.acquire();
    await new Promise((r) => setTimeout(r, 1600));
    expect(held!.held()).toBe(true);
    expect(await b.acquire()).toBeNull();
    await held!.release();
  });

  it('lapses when its holder dies (no renewal, no release): another replica takes over', async () => {
    const [a, b] = replicas(1000);
    const redis = new Redis(server.url);
    connections.push(redis);
    // A holder that died: the key set as acquire sets it, never renewed.
    await redis.set(`gc${n - 1}:gc:lease`, 'dead-holder', 'PX', 1000, 'NX');
    expect(await a.acquire()).toBeNull();
    await new Promise((r) => setTimeout(r, 1100));
    const taken = await b.acquire();
    expect(taken).not.toBeNull();
    await taken!.release();
  });

  it('shares the cursor: a pass continues where the other replica stopped', async () => {
    const [a, b] = replicas(1000);
    expect(await b.cursor()).toBeUndefined();
    await a.saveCursor(Buffer.alloc(32, 0xab));
    expect((await b.cursor())?.equals(Buffer.alloc(32, 0xab))).toBe(true);
    await b.saveCursor(undefined);
    expect(await a.cursor()).toBeUndefined();
  });

  it('two collectors started together: one runs the pass, the other skips it, and their passes never overlap', async () => {
    const [a, b] = replicas(5000);
    const { store } = newTestStore();
    const storage = new StorageConfig();
    storage.gc.pending_grace_secs = 0;
    const bytes = randomBytes(3000);
    const { commitment } = commitmentOfBuffer(bytes);
    const tape = Keypair.generate().publicKey.toBase58();
    const track = versionOwner(tape, 1, randomBytes(32));
    await store.claim({ commitment, track, tape, role: 'track', size: bytes.length });
    await store.put(commitment, bytes.length, bodyOf(bytes));
    const writer = () => new GatewayIdentity(Keypair.generate(), 'writer');
    const first = new TrackGarbageCollector(store, slowChain, storage, writer(), a);
    const second = new TrackGarbageCollector(store, slowChain, storage, writer(), b);
    const passes = await Promise.all([first.runPass(), second.runPass()]);
    expect(passes.map((p) => p.skipped === true).sort()).toEqual([false, true]);
    expect(passes.find((p) => !p.skipped)?.deleted).toBe(1);
    expect(first.stats().skippedPasses + second.stats().skippedPasses).toBe(1);
    // Released at the end of the pass: the next pass may run on either replica.
    const again = await second.runPass();
    expect(again.skipped).toBeUndefined();
    const windows = [...first.stats().recentPasses, ...second.stats().recentPasses].sort(
      (x, y) => x.startedAt - y.startedAt,
    );
    expect(windows).toHaveLength(2);
    expect(windows[0].endedAt).toBeLessThanOrEqual(windows[1].startedAt);
  });
});
