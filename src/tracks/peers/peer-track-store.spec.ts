import { createServer, Server, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { commitmentOfBuffer, commitmentToHex } from '../commitment';
import { TrackCache } from '../s3/track-cache';
import { IntegrityError, TrackStoreUnavailableError } from '../track-errors';
import { PeerTrackStore } from './peer-track-store';

type Behaviour =
  | 'honest'
  | 'flip'
  | 'short'
  | 'long'
  | 'huge'
  | 'lie-size'
  | 'stall'
  | 'stall-body'
  | 'bad-list'
  | 'missing'
  | 'error';

/** A peer gateway serving /tracks/{hex} and /tracks/{hex}/chunks from a map, lying on request. */
async function newPeer(tracks: Map<string, Buffer>, behaviour: Behaviour) {
  const peer = { behaviour, requests: 0, server: undefined as unknown as Server, url: '' };
  peer.server = createServer((req: IncomingMessage, res: ServerResponse) => {
    peer.requests++;
    const m = /^\/tracks\/([0-9a-f]{64})(\/chunks)?$/.exec(req.url ?? '');
    const bytes = m ? tracks.get(m[1]) : undefined;
    if (peer.behaviour === 'stall') return; // never answers
    if (peer.behaviour === 'error') return void res.writeHead(500).end();
    if (!bytes || peer.behaviour === 'missing') return void res.writeHead(404).end();
    const digest = commitmentOfBuffer(bytes);
    if (m![2]) {
      const list = Buffer.from(digest.chunkHashes);
      if (peer.behaviour === 'bad-list') list[0] ^= 1;
      return void res.writeHead(200, { 'content-length': list.length }).end(list);
    }
    if (req.method === 'HEAD') {
      const length =
        peer.behaviour === 'huge'
          ? 2 ** 40
          : peer.behaviour === 'lie-size'
            ? bytes.length + 1
            : bytes.length;
      return void res.writeHead(200, { 'content-length': length }).end();
    }
    const r = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
    const [a, b] = r ? [Number(r[1]), Number(r[2])] : [0, bytes.length - 1];
    let body = Buffer.from(bytes.subarray(a, b + 1));
    if (peer.behaviour === 'flip') body[body.length - 1] ^= 0xff;
    if (peer.behaviour === 'stall-body') {
      // Headers and a first piece, then silence: the body's idle timeout must end it.
      res.writeHead(206, { 'content-length': body.length });
      return void res.write(body.subarray(0, 1000));
    }
    if (peer.behaviour === 'short') body = body.subarray(1);
    if (peer.behaviour === 'long') body = Buffer.concat([body, Buffer.alloc(1 << 20)]);
    res.writeHead(r ? 206 : 200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => peer.server.listen(0, '127.0.0.1', resolve));
  peer.url = `http://127.0.0.1:${(peer.server.address() as AddressInfo).port}`;
  return peer;
}

async function collect(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of stream as AsyncIterable<Buffer>) parts.push(p);
  return Buffer.concat(parts);
}

describe('PeerTrackStore', () => {
  const bytes = Buffer.alloc(200_000);
  for (let i = 0; i < bytes.length; i++) bytes[i] = i % 251;
  const { commitment } = commitmentOfBuffer(bytes);
  const hex = commitmentToHex(commitment);
  const tracks = new Map([[hex, bytes]]);
  let dir: string;
  const servers: Server[] = [];
  const stores: PeerTrackStore[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'peer-store-'));
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) s.close();
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      s.close();
    }
    await rm(dir, { recursive: true, force: true });
  });

  async function newTestStore(behaviours: Behaviour[], timeoutMs = 2000) {
    const peers = [];
    for (const b of behaviours) {
      const p = await newPeer(tracks, b);
      servers.push(p.server);
      peers.push(p);
    }
    const sut = new PeerTrackStore({
      peers: peers.map((p) => p.url),
      timeoutMs,
      retryAfterMs: 60_000,
      cache: new TrackCache(join(dir, 'track-cache'), 64 * 1024 * 1024),
    });
    stores.push(sut);
    await sut.init();
    const failures = async () => (await sut.stats()).peerFailures ?? [];
    return { sut, peers, failures };
  }

  it('serves verified bytes from an honest peer, caches them, and reads the cache next time', async () => {
    const { sut, peers } = await newTestStore(['honest']);
    expect(await sut.storedSize(commitment)).toBe(bytes.length);
    expect(await collect(sut.openRange(commitment, bytes.length, 0, bytes.length - 1))).toEqual(
      bytes,
    );
    await eventually(() => expect(sut.holdsLocally(commitment)).toBe(true));
    const asked = peers[0].requests;
    expect(await collect(sut.openRange(commitment, bytes.length, 70_000, 140_000))).toEqual(
      bytes.subarray(70_000, 140_001),
    );
    expect(peers[0].requests).toBe(asked);
  });

  it.each<[Behaviour, string]>([
    ['flip', 'bad_bytes'],
    ['short', 'wrong_length'],
    ['long', 'wrong_length'],
    ['bad-list', 'bad_chunk_list'],
    ['stall', 'timeout'],
    ['stall-body', 'timeout'],
    ['error', 'status'],
  ])('skips a peer that is %s for the next one and counts it (%s)', async (behaviour, reason) => {
    const { sut, peers, failures } = await newTestStore([behaviour, 'honest'], 300);
    const got = await collect(sut.openRange(commitment, bytes.length, 1000, 150_000));
    expect(got).toEqual(bytes.subarray(1000, 150_001));
    expect(await failures()).toContainEqual({
      peer: new URL(peers[0].url).origin,
      reason,
      count: 1,
    });
    expect((await failures()).some((f) => f.peer === new URL(peers[1].url).origin)).toBe(false);
  });

  it('fails with an integrity error (502) when every peer lies, a store error (503) when none answers', async () => {
    const lying = await newTestStore(['flip', 'flip']);
    await expect(
      collect(lying.sut.openRange(commitment, bytes.length, 0, bytes.length - 1)),
    ).rejects.toBeInstanceOf(IntegrityError);
    const down = await newTestStore(['error', 'error']);
    await expect(down.sut.readChunkHashes(commitment, bytes.length)).rejects.toBeInstanceOf(
      TrackStoreUnavailableError,
    );
    const none = await newTestStore(['missing']);
    expect(await none.sut.storedSize(commitment)).toBeUndefined();
  });

  it('a byte changed in a cache file is never served: the copy is dropped, counted and read again', async () => {
    const { sut } = await newTestStore(['honest']);
    await collect(sut.openRange(commitment, bytes.length, 0, bytes.length - 1));
    await eventually(() => expect(sut.holdsLocally(commitment)).toBe(true));
    const file = join(dir, 'track-cache', hex);
    const onDisk = await readFile(file);
    onDisk[130_000] ^= 0x01;
    await writeFile(file, onDisk);
    expect(await collect(sut.openRange(commitment, bytes.length, 0, bytes.length - 1))).toEqual(
      bytes,
    );
    expect((await sut.stats()).cacheMismatches).toBe(1);
  });

  it("does not believe a size over 1 GiB, and takes the next peer's", async () => {
    const { sut, failures } = await newTestStore(['huge', 'honest']);
    expect(await sut.storedSize(commitment)).toBe(bytes.length);
    expect((await failures()).map((f) => f.reason)).toEqual(['wrong_length']);
  });

  it("a peer that lies about a length is skipped, not believed: the next peer's is proven by its list", async () => {
    const { sut, failures } = await newTestStore(['lie-size', 'honest']);
    expect(await sut.storedSize(commitment)).toBe(bytes.length);
    expect((await failures()).map((f) => f.reason)).toEqual(['wrong_length']);
    expect(await collect(sut.openRange(commitment, bytes.length, 0, 99))).toEqual(
      bytes.subarray(0, 100),
    );
  });

  it('refuses to store (a reader with peers writes nothing)', async () => {
    const { sut } = await newTestStore(['honest']);
    await expect(sut.put(commitment, bytes.length, Readable.from([bytes]))).rejects.toBeInstanceOf(
      TrackStoreUnavailableError,
    );
  });
});

async function eventually(check: () => void, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
