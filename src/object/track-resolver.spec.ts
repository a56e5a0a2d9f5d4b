import { Keypair } from '@solana/web3.js';
import { Readable } from 'node:stream';
import { NetworkConfig, TapeRecord } from '../chain/account-layouts';
import { applyPublish } from '../chain/tape-history';
import { ChainError } from '../chain/chain-error';
import { ChainReader } from '../chain/chain-reader';
import { testTapeRecord } from '../chain/tape-record.spec-support';
import { ApiError } from '../http/api-error';
import { commitmentOfBuffer } from '../tracks/commitment';
import { StoreVersionNodes } from '../versions/store-version-nodes';
import { buildVersion } from '../versions/version-builder';
import { VersionEntry } from '../versions/version-entry';
import { fakeEntry } from '../versions/version-test-support.spec-support';
import { newTestStore } from '../../test/support/fixtures/tracks';
import { TrackResolver } from './track-resolver';
import { versionedTrackAddress } from './versioned-track';

const EPOCH_SECS = 3600;
const GENESIS = 1_700_000_000;

/** A chain with one tape whose versions the test publishes; counts the reads the resolver makes. */
function newTestResolver() {
  let now = 0;
  let chainSecs = GENESIS + 10 * EPOCH_SECS; // epoch 10
  const { store } = newTestStore();
  const tapeKey = Keypair.generate().publicKey;
  let tape: TapeRecord | null = testTapeRecord({
    authority: tapeKey,
    capacity: 1 << 20,
    activeEpoch: 9,
    expiryEpoch: 12,
    createdAt: GENESIS,
    keep: 2,
  });
  const calls = { getTape: 0 };
  let failing = false;
  const chain = {
    getTape: jest.fn(async () => {
      calls.getTape++;
      if (failing) throw new ChainError('unreachable', 'cannot reach the chain RPC');
      await Promise.resolve();
      return tape && { ...tape };
    }),
    networkConfig: jest.fn(
      async () => ({ genesisTime: GENESIS, epochDurationSecs: EPOCH_SECS }) as NetworkConfig,
    ),
    chainTime: jest.fn(async () => chainSecs),
  } as unknown as ChainReader;
  const sut = new TrackResolver(
    chain,
    { tapeTtlMs: 5_000, now: () => now },
    new StoreVersionNodes(store),
  );
  /** Stores a version of these entries and points the tape at it; answers their addresses. */
  const publish = async (...entries: VersionEntry[]) => {
    const version = buildVersion(entries);
    for (const bytes of [version.rootBytes, ...version.nodes.map((n) => n.bytes)]) {
      const c = commitmentOfBuffer(bytes).commitment;
      if (!(await store.has(c))) await store.put(c, bytes.length, Readable.from([bytes]));
    }
    tape = applyPublish(tape!, {
      root: version.rootCommitment,
      bytes: version.rootBytes.length,
      keptBytes: 0,
      publishedAt: 0,
    });
    return entries.map((e) => versionedTrackAddress(tapeKey, e.commitment));
  };
  return {
    sut,
    calls,
    tapeKey,
    publish,
    tape: () => tape!,
    closeTape: () => (tape = null),
    advance: (ms: number) => {
      now += ms;
      chainSecs += ms / 1000;
    },
    failRpc: (on: boolean) => (failing = on),
  };
}

async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string }> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ApiError) return { status: err.getStatus(), code: err.code };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('TrackResolver (64-byte version addresses: base58 of tape ‖ commitment)', () => {
  it('serves a file of the current version with its headers', async () => {
    const { sut, publish } = newTestResolver();
    const streamed: VersionEntry = {
      ...fakeEntry('video.mp4'),
      size: 99,
      location: { kind: 'stream', manifestBytes: 40 },
    };
    const [address] = await publish(streamed);
    const track = await sut.resolve(address);
    expect(track.ref).toEqual({ kind: 'manifest', commitment: streamed.commitment, size: 99 });
    expect(track.etag).toBe(`"${streamed.commitment.toString('hex')}"`);
    expect(track.headers.representation['content-type']).toBe('text/html; charset=utf-8');
    expect(track.headers.representation.etag).toBe(track.etag);
  });

  it.each([
    '',
    'abc',
    '0OIl'.repeat(10),
    'x'.repeat(45),
    `${'1'.repeat(31)}`,
    '../../etc/passwd',
    Keypair.generate().publicKey.toBase58(), // 32 bytes: a per-file track account, gone in 1.2.0
  ])('refuses the malformed address %j with 400 and no RPC', async (text) => {
    const { sut, calls } = newTestResolver();
    expect(await refusal(sut.resolve(text))).toEqual({
      status: 400,
      code: 'invalid_track_address',
    });
    expect(calls.getTape).toBe(0);
  });

  it('answers 404 when the tape account does not exist', async () => {
    const { sut, publish, closeTape } = newTestResolver();
    const [address] = await publish(fakeEntry('a.html'));
    closeTape();
    expect(await refusal(sut.resolve(address))).toEqual({ status: 404, code: 'track_not_found' });
  });

  it('answers 400 for a commitment no kept version holds, never cached, served once published', async () => {
    const { sut, calls, publish, tapeKey } = newTestResolver();
    const entry = fakeEntry('a.html');
    const address = versionedTrackAddress(tapeKey, entry.commitment);
    // Version 0: the tape has no version at all.
    expect(await refusal(sut.resolve(address))).toEqual({
      status: 400,
      code: 'track_not_certified',
    });
    await publish(entry);
    await expect(sut.resolve(address)).resolves.toBeDefined();
    expect(calls.getTape).toBe(2);
  });

  it('keeps a resolved file for the tape’s ttl, then reads the pointer again', async () => {
    const { sut, calls, publish, advance } = newTestResolver();
    const [address] = await publish(fakeEntry('a.html'));
    await sut.resolve(address);
    advance(4_999);
    await sut.resolve(address);
    expect(calls.getTape).toBe(1);
    advance(1);
    await sut.resolve(address);
    expect(calls.getTape).toBe(2);
  });

  it('stops serving a file once the tape keeps its version no more (keep 2), once its cache entry lapses', async () => {
    const { sut, publish, advance } = newTestResolver();
    const [old] = await publish(fakeEntry('a.html'));
    await publish(fakeEntry('a.html', 1));
    advance(5_000);
    await expect(sut.resolve(old)).resolves.toBeDefined(); // the previous version is kept
    await publish(fakeEntry('a.html', 2));
    await expect(sut.resolve(old)).resolves.toBeDefined(); // cached
    advance(5_000);
    expect(await refusal(sut.resolve(old))).toEqual({ status: 400, code: 'track_not_certified' });
  });

  it('concurrent first requests for a file share one RPC', async () => {
    const { sut, calls, publish } = newTestResolver();
    const [address] = await publish(fakeEntry('a.html'));
    await Promise.all(Array.from({ length: 20 }, () => sut.resolve(address)));
    expect(calls.getTape).toBe(1);
  });

  it('answers 410 once the tape expires, even while the file is cached', async () => {
    const { sut, calls, publish, advance } = newTestResolver();
    const [address] = await publish(fakeEntry('a.html'));
    // Epoch 10 of a tape whose expiry epoch is 12: 2 epochs left.
    await sut.resolve(address);
    advance(4_000);
    const reads = calls.getTape;
    advance(2 * EPOCH_SECS * 1000 - 4_000);
    // Both caches have lapsed meanwhile: the tape is read again and found expired.
    expect(await refusal(sut.resolve(address))).toEqual({ status: 410, code: 'tape_expired' });
    expect(calls.getTape).toBe(reads + 1);
  });

  it('decides expiry from the cached expiry time, with no RPC', async () => {
    const { sut, calls, publish, advance, tape } = newTestResolver();
    tape().expiryEpoch = 10;
    // Expires in one second.
    advance(EPOCH_SECS * 1000 - 1_000);
    const [address] = await publish(fakeEntry('a.html'));
    tape().expiryEpoch = 11;
    await sut.resolve(address);
    advance(1_000);
    expect(await refusal(sut.resolve(address))).toEqual({ status: 410, code: 'tape_expired' });
    expect(calls.getTape).toBe(1);
  });

  it('re-reads the tape every few seconds, so an extension is seen', async () => {
    const { sut, calls, publish, tape, advance } = newTestResolver();
    const [address] = await publish(fakeEntry('a.html'));
    tape().expiryEpoch = 10; // already expired
    expect(await refusal(sut.resolve(address))).toEqual({ status: 410, code: 'tape_expired' });
    tape().expiryEpoch = 20;
    advance(4_000);
    expect((await refusal(sut.resolve(address))).status).toBe(410);
    advance(1_000);
    await expect(sut.resolve(address)).resolves.toBeDefined();
    expect(calls.getTape).toBe(2);
  });

  it('peek answers only from the caches, and never for an expired tape', async () => {
    const { sut, calls, publish, advance } = newTestResolver();
    const [address] = await publish(fakeEntry('a.html'));
    expect(sut.peek(address)).toBeUndefined();
    const track = await sut.resolve(address);
    expect(sut.peek(address)).toBe(track);
    expect(calls.getTape).toBe(1);
    advance(4_000);
    expect(sut.peek(address)).toBe(track);
    advance(2 * EPOCH_SECS * 1000); // the tape's expiry epoch has begun
    expect(sut.peek(address)).toBeUndefined();
    expect(sut.peek('not an address')).toBeUndefined();
  });

  it('answers 503 when the chain cannot be reached', async () => {
    const { sut, publish, failRpc } = newTestResolver();
    const [address] = await publish(fakeEntry('a.html'));
    failRpc(true);
    expect(await refusal(sut.resolve(address))).toEqual({
      status: 503,
      code: 'chain_unavailable',
    });
    failRpc(false);
    await expect(sut.resolve(address)).resolves.toBeDefined();
  });

  it.each([
    ['', 'application/octet-stream'],
    ['text/html\r\nset-cookie: a=b', 'application/octet-stream'],
    [' text/plain', 'application/octet-stream'],
    ['text/plain; charset=ü', 'application/octet-stream'],
    ['image/png', 'image/png'],
  ])('sends the recorded content type %j as %j', async (recorded, sent) => {
    const { sut, publish } = newTestResolver();
    const [address] = await publish({ ...fakeEntry('a.html'), contentType: recorded });
    const track = await sut.resolve(address);
    expect(track.headers.representation['content-type']).toBe(sent);
    expect(track.headers.contentType).toBe(sent);
  });
});
