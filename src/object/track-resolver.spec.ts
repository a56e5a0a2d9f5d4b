import { Keypair, PublicKey } from '@solana/web3.js';
import {
  NetworkConfig,
  TapeRecord,
  TrackKind,
  TrackRecord,
  NO_VERSION,
} from '../chain/account-layouts';
import { ChainError } from '../chain/chain-error';
import { ChainReader } from '../chain/chain-reader';
import { ApiError } from '../http/api-error';
import { TrackResolver } from './track-resolver';

const EPOCH_SECS = 3600;
const GENESIS = 1_700_000_000;

/** A chain with one tape; counts the reads the resolver makes. */
function newTestResolver() {
  let now = 0;
  let chainSecs = GENESIS + 10 * EPOCH_SECS; // epoch 10
  const tapeKey = Keypair.generate().publicKey;
  const tracks = new Map<string, TrackRecord>();
  const tape: TapeRecord = {
    authority: tapeKey,
    delegate: null,
    capacity: 1 << 20,
    activeEpoch: 9,
    expiryEpoch: 12,
    createdAt: GENESIS,
    payer: Keypair.generate().publicKey,
    ...NO_VERSION,
  };
  const calls = { getTrack: 0, getTape: 0 };
  let failing = false;
  const chain = {
    getTrack: jest.fn(async (address: PublicKey) => {
      calls.getTrack++;
      if (failing) throw new ChainError('unreachable', 'cannot reach the chain RPC');
      await Promise.resolve();
      return tracks.get(address.toBase58()) ?? null;
    }),
    getTape: jest.fn(async () => {
      calls.getTape++;
      return { ...tape };
    }),
    networkConfig: jest.fn(
      async () => ({ genesisTime: GENESIS, epochDurationSecs: EPOCH_SECS }) as NetworkConfig,
    ),
    chainTime: jest.fn(async () => chainSecs),
  } as unknown as ChainReader;
  const sut = new TrackResolver(chain, {
    certifiedTtlMs: 60_000,
    tapeTtlMs: 5_000,
    now: () => now,
  });
  const addTrack = (fields: Partial<TrackRecord> = {}) => {
    const address = Keypair.generate().publicKey.toBase58();
    tracks.set(address, {
      tape: tapeKey,
      commitment: Buffer.alloc(32, 7),
      size: 1234,
      kind: TrackKind.Blob,
      certified: true,
      refs: 1,
      createdAt: GENESIS,
      contentType: 'text/html; charset=utf-8',
      ...fields,
    });
    return address;
  };
  return {
    sut,
    calls,
    tape,
    tracks,
    addTrack,
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

describe('TrackResolver', () => {
  it('serves a certified track with its headers', async () => {
    const { sut, addTrack } = newTestResolver();
    const address = addTrack({ kind: TrackKind.Manifest, size: 99 });
    const track = await sut.resolve(address);
    expect(track.ref).toEqual({ kind: 'manifest', commitment: Buffer.alloc(32, 7), size: 99 });
    expect(track.etag).toBe(`"${'07'.repeat(32)}"`);
    expect(track.headers.representation['content-type']).toBe('text/html; charset=utf-8');
    expect(track.headers.representation.etag).toBe(track.etag);
  });

  it.each(['', 'abc', '0OIl'.repeat(10), 'x'.repeat(45), `${'1'.repeat(31)}`, '../../etc/passwd'])(
    'refuses the malformed address %j with 400 and no RPC',
    async (text) => {
      const { sut, calls } = newTestResolver();
      expect(await refusal(sut.resolve(text))).toEqual({
        status: 400,
        code: 'invalid_track_address',
      });
      expect(calls.getTrack).toBe(0);
    },
  );

  it('answers 404 for an unknown track, and does not remember it', async () => {
    const { sut, calls, tracks, addTrack } = newTestResolver();
    const address = Keypair.generate().publicKey.toBase58();
    expect(await refusal(sut.resolve(address))).toEqual({ status: 404, code: 'track_not_found' });
    expect(await refusal(sut.resolve(address))).toEqual({ status: 404, code: 'track_not_found' });
    expect(calls.getTrack).toBe(2);
    tracks.set(address, tracks.get(addTrack())!);
    await expect(sut.resolve(address)).resolves.toBeDefined();
  });

  it('answers 400 for an uncertified track, never cached, served once certified', async () => {
    const { sut, calls, tracks, addTrack } = newTestResolver();
    const address = addTrack({ certified: false });
    expect(await refusal(sut.resolve(address))).toEqual({
      status: 400,
      code: 'track_not_certified',
    });
    tracks.get(address)!.certified = true;
    await expect(sut.resolve(address)).resolves.toBeDefined();
    expect(calls.getTrack).toBe(2);
  });

  it('caches certified records for their lifetime, then reads them again', async () => {
    const { sut, calls, addTrack, advance } = newTestResolver();
    const address = addTrack();
    await sut.resolve(address);
    advance(59_000);
    await sut.resolve(address);
    expect(calls.getTrack).toBe(1);
    advance(1_000);
    await sut.resolve(address);
    expect(calls.getTrack).toBe(2);
  });

  it('concurrent first requests for a track share one RPC', async () => {
    const { sut, calls, addTrack } = newTestResolver();
    const address = addTrack();
    await Promise.all(Array.from({ length: 20 }, () => sut.resolve(address)));
    expect(calls.getTrack).toBe(1);
    expect(calls.getTape).toBe(1);
  });

  it('answers 410 once the tape expires, even while its record is cached', async () => {
    const { sut, calls, addTrack, advance } = newTestResolver();
    const address = addTrack();
    // Epoch 10 of a tape whose expiry epoch is 12: 2 epochs left.
    await sut.resolve(address);
    advance(2 * EPOCH_SECS * 1000 - 1000);
    await sut.resolve(address);
    const reads = calls.getTape;
    advance(1000);
    expect(await refusal(sut.resolve(address))).toEqual({ status: 410, code: 'tape_expired' });
    expect(calls.getTape).toBe(reads); // decided from the cached expiry time, no RPC
  });

  it('re-reads the tape every few seconds, so an extension is seen', async () => {
    const { sut, calls, tape, addTrack, advance } = newTestResolver();
    const address = addTrack();
    tape.expiryEpoch = 10; // already expired
    expect(await refusal(sut.resolve(address))).toEqual({ status: 410, code: 'tape_expired' });
    tape.expiryEpoch = 20;
    advance(4_000);
    expect((await refusal(sut.resolve(address))).status).toBe(410);
    advance(1_000);
    await expect(sut.resolve(address)).resolves.toBeDefined();
    expect(calls.getTape).toBe(2);
  });

  it('peek answers only from the caches, and never for an expired tape', async () => {
    const { sut, calls, addTrack, advance } = newTestResolver();
    const address = addTrack();
    expect(sut.peek(address)).toBeUndefined();
    const track = await sut.resolve(address);
    expect(sut.peek(address)).toBe(track);
    expect(calls.getTrack).toBe(1);
    advance(2 * EPOCH_SECS * 1000); // the tape's expiry epoch has begun
    expect(sut.peek(address)).toBeUndefined();
    expect(sut.peek('not an address')).toBeUndefined();
  });

  it('answers 503 when the chain cannot be reached', async () => {
    const { sut, addTrack, failRpc } = newTestResolver();
    const address = addTrack();
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
    const { sut, addTrack } = newTestResolver();
    const track = await sut.resolve(addTrack({ contentType: recorded }));
    expect(track.headers.representation['content-type']).toBe(sent);
    expect(track.headers.contentType).toBe(sent);
  });
});
