import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { startRedis, RedisServer } from '../../test/support/processes/metering-redis';
import { versionOwner } from './gc/version-owner';
import { RedisTrackReferences } from './redis-track-references';
import type { TrackClaim } from './track-store';

const TAPE = 'GegjFWW8SVeSTqsyo9ZkEzCQY2mY55T2AUazk4kjfYyT';

describe('RedisTrackReferences (a real redis-server): every writer records into one index', () => {
  let server: RedisServer;
  const connections: Redis[] = [];
  let n = 0;
  /** Two replicas' views of one index (separate connections, one prefix per test). */
  const twoReplicas = () => {
    const prefix = `t${n++}:`;
    return [0, 1].map(() => {
      const redis = new Redis(server.url);
      connections.push(redis);
      return new RedisTrackReferences(redis, prefix, 5000);
    });
  };
  const claimOf = (
    commitment: Buffer,
    track: string,
    role: 'track' | 'segment' = 'track',
    size = 10,
  ): TrackClaim => ({
    commitment,
    track,
    tape: TAPE,
    role,
    size,
  });

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    connections.forEach((c) => c.disconnect());
    await server?.stop();
  });

  it("a reference recorded by one writer is listed by the other's collector, in byte order", async () => {
    const [a, b] = twoReplicas();
    const low = Buffer.alloc(32, 0x01);
    const high = Buffer.alloc(32, 0xf0);
    await a.claim(claimOf(high, 'owner-a'));
    await b.claim(claimOf(low, 'owner-b'));
    const listed = await a.list(undefined, 10);
    expect(listed.map((l) => l.commitment.toString('hex'))).toEqual([
      low.toString('hex'),
      high.toString('hex'),
    ]);
    expect(listed[0].references).toEqual([
      expect.objectContaining({ track: 'owner-b', tape: TAPE, role: 'track', size: 10 }),
    ]);
    expect((await b.list(low, 10)).map((l) => l.commitment.equals(high))).toEqual([true]);
  });

  it('no fence while another writer holds a reference; a writer that claims after a fence waits for the deletion', async () => {
    const [collector, writer] = twoReplicas();
    const blob = randomBytes(32);
    const claimed = await writer.claim(claimOf(blob, 'owner'));
    expect(await collector.fenceDeletion(blob, 5000)).toBeNull();
    await writer.unclaim(claimOf(blob, 'owner'), claimed.recordedAt);
    const fence = await collector.fenceDeletion(blob, 5000);
    expect(fence).not.toBeNull();
    // A second collector cannot fence the same blob.
    expect(await writer.fenceDeletion(blob, 5000)).toBeNull();
    await writer.claim(claimOf(blob, 'owner-2'));
    let waited = false;
    const waiting = writer.awaitDeletion(blob).then(() => (waited = true));
    await new Promise((r) => setTimeout(r, 200));
    expect(waited).toBe(false);
    await collector.endDeletion(blob, fence!);
    await waiting;
    expect(waited).toBe(true);
  });

  it('drop keeps a reference refreshed at or after the decision; unclaim only the exact one', async () => {
    const [a, b] = twoReplicas();
    const blob = randomBytes(32);
    const first = await a.claim(claimOf(blob, 'owner'));
    const [listed] = await a.list(undefined, 1);
    await new Promise((r) => setTimeout(r, 5));
    await b.claim(claimOf(blob, 'owner')); // refreshed by another writer
    await a.drop(blob, listed.references, first.recordedAt + 1);
    expect((await a.list(undefined, 1))[0].references).toHaveLength(1);
    await a.unclaim(claimOf(blob, 'owner'), first.recordedAt);
    expect((await a.list(undefined, 1))[0].references).toHaveLength(1);
    await a.drop(blob, listed.references, Date.now() + 1000);
    expect(await a.list(undefined, 1)).toEqual([]);
  });

  it("refuses a segment past the owner's limit, counting segments recorded by every writer", async () => {
    const [a, b] = twoReplicas();
    expect(
      (await a.claim(claimOf(randomBytes(32), 'm', 'segment', 60), { maxOwnerSegmentBytes: 100 }))
        .accepted,
    ).toBe(true);
    const refused = await b.claim(claimOf(randomBytes(32), 'm', 'segment', 50), {
      maxOwnerSegmentBytes: 100,
    });
    expect(refused.accepted).toBe(false);
    expect(
      (await b.claim(claimOf(randomBytes(32), 'm', 'segment', 40), { maxOwnerSegmentBytes: 100 }))
        .accepted,
    ).toBe(true);
  });

  it('keeps a version owner whole through its fields, and drops it like any other', async () => {
    const [a, b] = twoReplicas();
    const blob = randomBytes(32);
    const owner = versionOwner(TAPE, 1, randomBytes(32));
    await a.claim(claimOf(blob, owner));
    const [listed] = await b.list(undefined, 1);
    expect(listed.references).toEqual([
      expect.objectContaining({ track: owner, tape: TAPE, role: 'track', size: 10 }),
    ]);
    await b.drop(blob, listed.references, Date.now() + 1000);
    expect(await a.list(undefined, 1)).toEqual([]);
  });

  it("records many at once, lists a tape's blobs, and bounds the tape's distinct bytes", async () => {
    const [a, b] = twoReplicas();
    const [one, two, three] = [1, 2, 3].map((n) => Buffer.alloc(32, n));
    const other = 'Other1111111111111111111111111111111111111';
    await a.claimMany([claimOf(one, 'v1', 'track', 100), { ...claimOf(three, 'o'), tape: other }]);
    const limits = { maxTapeBytes: 250 };
    expect((await b.claim(claimOf(two, 'staged', 'segment', 100), limits)).accepted).toBe(true);
    expect((await b.claim(claimOf(one, 'staged', 'segment', 100), limits)).accepted).toBe(true);
    expect((await a.claim(claimOf(three, 'staged', 'segment', 100), limits)).accepted).toBe(false);
    const ofTape = await a.referencesOfTape(TAPE);
    expect(ofTape.map((x) => [x.commitment[0], x.references.map((r) => r.track).sort()])).toEqual([
      [1, ['staged', 'v1']],
      [2, ['staged']],
    ]);
    // The tape's last reference to a blob takes it out of the tape's bytes.
    await b.drop(two, ofTape[1].references, Date.now() + 1000);
    expect((await a.claim(claimOf(three, 'staged', 'segment', 100), limits)).accepted).toBe(true);
    expect((await a.referencesOfTape(other)).map((x) => x.commitment[0])).toEqual([3]);
  });
});
