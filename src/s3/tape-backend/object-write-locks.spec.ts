import Redis from 'ioredis';
import { startRedis, RedisServer } from '../../../test/support/metering-redis';
import { RedisMutex } from '../../shared-state/redis-mutex';
import { SharedObjectWriteLocks } from './object-write-locks';

describe('SharedObjectWriteLocks (a real redis-server): one write of a name at a time over all writers', () => {
  let server: RedisServer;
  const connections: Redis[] = [];
  const writer = () => {
    const redis = new Redis(server.url);
    connections.push(redis);
    return new SharedObjectWriteLocks(new RedisMutex(redis, 2000), 'locks:');
  };

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    connections.forEach((c) => c.disconnect());
    await server?.stop();
  });

  it("a second writer's write of the same name waits for the first; other names do not", async () => {
    const [a, b] = [writer(), writer()];
    const events: string[] = [];
    let release!: () => void;
    let started!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const holding = new Promise<void>((r) => (started = r));
    const first = a.run(['tape/index.html'], async () => {
      events.push('a:start');
      started();
      await held;
      events.push('a:end');
    });
    await holding;
    const same = b.run(['tape/index.html'], async () => {
      events.push('b:same');
    });
    const other = b.run(['tape/other.html'], async () => {
      events.push('b:other');
    });
    await other;
    await new Promise((r) => setTimeout(r, 200));
    expect(events).toEqual(['a:start', 'b:other']);
    release();
    await Promise.all([first, same]);
    expect(events).toEqual(['a:start', 'b:other', 'a:end', 'b:same']);
  });

  it('takes several names in one order on every writer (a copy and a delete never deadlock)', async () => {
    const [a, b] = [writer(), writer()];
    const done = await Promise.all([
      a.run(['t/x', 't/y'], async () => 'a'),
      b.run(['t/y', 't/x'], async () => 'b'),
    ]);
    expect(done.sort()).toEqual(['a', 'b']);
  });
});
