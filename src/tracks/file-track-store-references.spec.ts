import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bodyOf, drain, newTestStore } from '../../test/support/fixtures/tracks';
import { commitmentOfBuffer, commitmentToHex } from './commitment';
import { IntegrityError } from './track-errors';
import type { TrackClaim } from './track-store';

const TAPE_A = 'TapeA1111111111111111111111111111111111111';
const TAPE_B = 'TapeB1111111111111111111111111111111111111';

function blob(bytes = randomBytes(70_000)) {
  const { commitment } = commitmentOfBuffer(bytes);
  const hex = commitmentToHex(commitment);
  return { bytes, commitment, hex };
}

function claimOf(commitment: Buffer, track: string, tape = TAPE_A, size = 1): TrackClaim {
  return { commitment, track, tape, role: 'track', size };
}

describe('FileTrackStore: a corrupt stored copy is replaced by a verified upload', () => {
  it('quarantines the bad copy, renames the verified one over it, and reports the track', async () => {
    const { store, root } = newTestStore();
    const { bytes, commitment, hex } = blob();
    await store.put(commitment, bytes.length, bodyOf(bytes));
    const path = join(root, hex.slice(0, 2), hex.slice(2, 4), hex);
    const bad = readFileSync(path);
    bad.writeUInt32LE((bad.readUInt32LE(100) ^ 0xffffffff) >>> 0, 100);
    writeFileSync(path, bad);
    expect((await drain(store.openRange(commitment, bytes.length, 0, 10))).error).toBeInstanceOf(
      IntegrityError,
    );

    await store.put(commitment, bytes.length, bodyOf(bytes));

    expect(
      (await drain(store.openRange(commitment, bytes.length, 0, bytes.length - 1))).bytes,
    ).toEqual(bytes);
    const quarantined = readdirSync(join(root, 'quarantine'));
    expect(quarantined.filter((f) => !f.endsWith('.chunks'))).toHaveLength(1);
    expect(readFileSync(join(root, 'quarantine', quarantined.sort()[0])).equals(bad)).toBe(true);
    const stats = await store.stats();
    expect([stats.quarantined, stats.corruptTracks, stats.recentCorruptTracks]).toEqual([
      1,
      1,
      [hex],
    ]);
  });

  it('checks the chunk list on disk, not a cached verified copy of it', async () => {
    const { store, root } = newTestStore();
    const { bytes, commitment, hex } = blob();
    await store.put(commitment, bytes.length, bodyOf(bytes));
    await store.readChunkHashes(commitment, bytes.length); // now cached
    const list = join(root, hex.slice(0, 2), hex.slice(2, 4), `${hex}.chunks`);
    const bad = readFileSync(list);
    bad[0] ^= 1;
    writeFileSync(list, bad);
    await store.put(commitment, bytes.length, bodyOf(bytes));
    expect((await store.stats()).quarantined).toBe(1);
    expect(readFileSync(list).equals(commitmentOfBuffer(bytes).chunkHashes)).toBe(true);
  });

  it('an intact stored copy is left alone (nothing quarantined)', async () => {
    const { store, root } = newTestStore();
    const { bytes, commitment } = blob();
    await store.put(commitment, bytes.length, bodyOf(bytes));
    await store.put(commitment, bytes.length, bodyOf(bytes));
    expect(existsSync(join(root, 'quarantine'))).toBe(false);
    expect((await store.stats()).quarantined).toBe(0);
  });
});

describe('FileTrackStore: references and release', () => {
  it('unclaim withdraws a reference only when no upload refreshed it since', async () => {
    const { store } = newTestStore();
    const claim = claimOf(Buffer.alloc(32, 7), 'track-1');
    const first = await store.claim(claim);
    expect(first.inserted).toBe(true);
    await new Promise((r) => setTimeout(r, 3));
    expect((await store.claim(claim)).inserted).toBe(false);
    await store.unclaim(claim, first.recordedAt);
    expect(await store.listReferenced(undefined, 10)).toHaveLength(1);
    const other = claimOf(Buffer.alloc(32, 8), 'track-2');
    await store.unclaim(other, (await store.claim(other)).recordedAt);
    expect(await store.listReferenced(undefined, 10)).toHaveLength(1);
  });

  const dead = async (store: ReturnType<typeof newTestStore>['store'], c: Buffer) =>
    (await store.listReferenced(undefined, 100)).find((b) => b.commitment.equals(c))?.references ??
    [];

  it('deletes the bytes once their only reference is dropped', async () => {
    const { store } = newTestStore();
    const { bytes, commitment } = blob();
    await store.claim(claimOf(commitment, 'track-1'));
    await store.put(commitment, bytes.length, bodyOf(bytes));
    const refs = await dead(store, commitment);
    expect(await store.release(commitment, refs, Date.now() + 1)).toEqual({
      outcome: 'deleted',
      bytes: bytes.length,
    });
    expect(await store.has(commitment)).toBe(false);
    expect(await store.listReferenced(undefined, 10)).toEqual([]);
    expect((await store.stats()).collectedBytes).toBe(bytes.length);
  });

  it('keeps a blob two tapes share until both references are dead', async () => {
    const { store } = newTestStore();
    const { bytes, commitment } = blob();
    await store.claim(claimOf(commitment, 'track-a', TAPE_A));
    await store.claim(claimOf(commitment, 'track-b', TAPE_B));
    await store.put(commitment, bytes.length, bodyOf(bytes));
    const refs = await dead(store, commitment);
    const a = refs.filter((r) => r.track === 'track-a');
    expect(await store.release(commitment, a, Date.now() + 1)).toEqual({ outcome: 'kept' });
    expect(await store.has(commitment)).toBe(true);
    const b = (await dead(store, commitment)).filter((r) => r.track === 'track-b');
    expect(b).toHaveLength(1);
    expect((await store.release(commitment, b, Date.now() + 1)).outcome).toBe('deleted');
  });

  it('keeps a reference recorded after the decision (a re-created track uploading again)', async () => {
    const { store } = newTestStore();
    const { bytes, commitment } = blob();
    await store.claim(claimOf(commitment, 'track-1'));
    await store.put(commitment, bytes.length, bodyOf(bytes));
    const decidedAt = Date.now();
    const refs = await dead(store, commitment);
    await new Promise((r) => setTimeout(r, 5));
    await store.claim(claimOf(commitment, 'track-1')); // the upload of the re-created track
    expect(await store.release(commitment, refs, decidedAt)).toEqual({ outcome: 'kept' });
    expect(await store.has(commitment)).toBe(true);
  });

  it('a blob claimed while a release has moved it aside is never seen missing: storedSize waits', async () => {
    const { store } = newTestStore();
    const { bytes, commitment } = blob();
    await store.claim(claimOf(commitment, 'version-1'));
    await store.put(commitment, bytes.length, bodyOf(bytes));
    const decidedAt = Date.now() + 1;
    const refs = await dead(store, commitment);
    const releasing = store.release(commitment, refs, decidedAt);
    // Inside the window: the files are being moved aside when the new version claims the blob
    // (a group commit whose new version's root equals an older, dropped one) and asks for it.
    const moving = (store as unknown as { releasing: Map<string, unknown> }).releasing;
    while (moving.size === 0) await new Promise((r) => setImmediate(r));
    await store.claim(claimOf(commitment, 'version-3'));
    expect(await store.storedSize(commitment)).toBe(bytes.length);
    expect(await releasing).toEqual({ outcome: 'kept' });
    expect(await store.has(commitment)).toBe(true);
  });

  it('refuses a segment that would pass its owner’s byte budget', async () => {
    const { store } = newTestStore();
    const seg = (n: number): TrackClaim => ({
      commitment: Buffer.alloc(32, n),
      track: 'manifest',
      tape: TAPE_A,
      role: 'segment',
      size: 100,
    });
    const accepted = async (n: number) =>
      (await store.claim(seg(n), { maxOwnerSegmentBytes: 250 })).accepted;
    expect(await accepted(1)).toBe(true);
    expect(await accepted(2)).toBe(true);
    // The same segment again does not count twice.
    expect(await accepted(2)).toBe(true);
    expect(await accepted(3)).toBe(false);
    expect((await store.listReferenced(undefined, 10)).map((b) => b.commitment[0])).toEqual([1, 2]);
  });

  it("bounds a tape's distinct blobs, whoever of its owners references them", async () => {
    const { store } = newTestStore();
    const ref = (n: number, track: string, tape = TAPE_A, size = 100): TrackClaim => ({
      commitment: Buffer.alloc(32, n),
      track,
      tape,
      role: 'segment',
      size,
    });
    const limits = { maxTapeBytes: 250 };
    await store.claimMany([ref(1, 'version-1', TAPE_A), ref(9, 'other', TAPE_B, 1000)]);
    expect((await store.claim(ref(2, 'staged', TAPE_A), limits)).accepted).toBe(true);
    // Blob 1 is the tape's already (its version references it): it costs nothing more.
    expect((await store.claim(ref(1, 'staged', TAPE_A), limits)).accepted).toBe(true);
    expect((await store.claim(ref(3, 'staged', TAPE_A), limits)).accepted).toBe(false);
    // Another tape's blobs count for that tape only.
    expect((await store.claim(ref(9, 'x', TAPE_A, 1000), limits)).accepted).toBe(false);

    const ofA = await store.referencesOfTape(TAPE_A);
    expect(ofA.map((b) => [b.commitment[0], b.references.map((r) => r.track).sort()])).toEqual([
      [1, ['staged', 'version-1']],
      [2, ['staged']],
    ]);
    expect((await store.referencesOfTape(TAPE_B)).map((b) => b.commitment[0])).toEqual([9]);
  });
});
