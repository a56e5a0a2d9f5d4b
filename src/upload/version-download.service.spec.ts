import { PublicKey } from '@solana/web3.js';
import { Readable } from 'node:stream';
import type { TapeRecord } from '../chain/account-layouts';
import type { ChainReader } from '../chain/chain-reader';
import { verifyVersionDownload } from '../cli/versions/version-download';
import type { TrackStore } from '../tracks/track-store';
import { buildVersion } from '../versions/version-builder';
import { fakeEntry, sitePaths } from '../versions/version-test-support.spec-support';
import { EncodedVersions, keptVersionOf, VersionDownloadService } from './version-download.service';

const TAPE = new PublicKey('hR2uCbBrhccHRDcCKbTqPc9SQ2GLuWLcHomiLiFM8n9');

function newTestService(names = 2000) {
  const v = buildVersion(
    sitePaths(names).map((n) => fakeEntry(n)),
    Buffer.alloc(0),
  );
  const tracks = new Map<string, Buffer>([[v.rootCommitment.toString('hex'), v.rootBytes]]);
  for (const n of v.nodes) tracks.set(n.commitment.toString('hex'), n.bytes);
  let reads = 0;
  const store = {
    storedSize: async (c: Buffer) => tracks.get(c.toString('hex'))?.length,
    openRange: (c: Buffer, _size: number, start: number, end: number) => {
      reads++;
      return Readable.from([tracks.get(c.toString('hex'))!.subarray(start, end + 1)]);
    },
  } as unknown as TrackStore;
  const tape = {
    version: 7,
    history: [
      { version: 6, root: Buffer.alloc(32), bytes: 1, publishedAt: 1 },
      { version: 7, root: v.rootCommitment, bytes: 1, publishedAt: 1 },
    ],
  };
  const chain = { getTape: async () => tape as unknown as TapeRecord } as unknown as ChainReader;
  const sut = new VersionDownloadService(chain, store);
  return { sut, v, tape, reads: () => reads };
}

async function bytesOf(body: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of body) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

describe('VersionDownloadService', () => {
  it('encodes a version once: a repeated download reads nothing from the store', async () => {
    const { sut, v, reads } = newTestService();
    const rootHex = v.rootCommitment.toString('hex');
    const first = await sut.open(TAPE.toBase58(), rootHex);
    const firstBytes = await bytesOf(first.body);
    const readsOnce = reads();
    expect(readsOnce).toBe(1 + v.nodes.length);
    const again = await sut.open(TAPE.toBase58(), rootHex);
    expect(again.version).toBe(7);
    expect((await bytesOf(again.body)).equals(firstBytes)).toBe(true);
    expect(reads()).toBe(readsOnce);
    // And it is a whole, valid download.
    const checked = await verifyVersionDownload(v.rootCommitment, firstBytes);
    expect(checked.entries).toHaveLength(2000);
  });

  it('still asks the chain: a root the tape no longer keeps is refused though encoded', async () => {
    const { sut, v, tape } = newTestService(50);
    const rootHex = v.rootCommitment.toString('hex');
    await bytesOf((await sut.open(TAPE.toBase58(), rootHex)).body);
    tape.version = 9;
    tape.history = [
      { version: 8, root: Buffer.alloc(32, 2), bytes: 1, publishedAt: 1 },
      { version: 9, root: Buffer.alloc(32, 1), bytes: 1, publishedAt: 1 },
    ];
    await expect(sut.open(TAPE.toBase58(), rootHex)).rejects.toThrow(
      /not the root of a version the tape keeps/,
    );
  });

  it('keeps a download only once the client read it whole', async () => {
    const { sut, v, reads } = newTestService();
    const rootHex = v.rootCommitment.toString('hex');
    const cut = await sut.open(TAPE.toBase58(), rootHex);
    for await (const _part of cut.body) break;
    const before = reads();
    await bytesOf((await sut.open(TAPE.toBase58(), rootHex)).body);
    expect(reads()).toBeGreaterThan(before);
  });
});

describe('EncodedVersions', () => {
  it('is bounded by bytes, the least recently asked for going first', () => {
    const sut = new EncodedVersions(100);
    sut.set('a', Buffer.alloc(40));
    sut.set('b', Buffer.alloc(40));
    expect(sut.get('a')).toBeDefined();
    sut.set('c', Buffer.alloc(40));
    expect(sut.get('b')).toBeUndefined();
    expect(sut.get('a')).toBeDefined();
    expect(sut.get('c')).toBeDefined();
    expect(sut.size).toBe(80);
    sut.set('huge', Buffer.alloc(101));
    expect(sut.get('huge')).toBeUndefined();
    expect(sut.size).toBe(80);
  });
});

const root = (n: number) => Buffer.alloc(32, n);
const kept = (version: number, r = root(version)) => ({
  version,
  root: r,
  bytes: 1,
  publishedAt: 1,
});

describe('keptVersionOf (GET /versions/{tape}/{root})', () => {
  it('finds any kept root, the newest number when two kept versions share a root', () => {
    const tape = { history: [kept(2), kept(5), kept(7, root(2)), kept(9)] };
    expect(keptVersionOf(tape, root(5))).toBe(5);
    expect(keptVersionOf(tape, root(9))).toBe(9);
    expect(keptVersionOf(tape, root(2))).toBe(7);
  });

  it('answers undefined for a root no kept version has (evicted, never published)', () => {
    expect(keptVersionOf({ history: [kept(3)] }, root(1))).toBeUndefined();
    expect(keptVersionOf({ history: [] }, root(1))).toBeUndefined();
  });
});
