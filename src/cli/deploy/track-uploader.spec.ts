import { Keypair, PublicKey } from '@solana/web3.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TrackKind } from '../../chain/account-layouts';
import { commitmentOfBuffer } from '../../tracks/commitment';
import { splitFileIntoTracks } from '../../tracks/track-layout';
import { UPLOAD_HEADERS, verifyUpload } from '../../upload/upload-auth';
import { PlannedTrack } from './deploy-planner';
import { GatewayClient } from './gateway-client';
import { TrackUploader, UploaderOptions } from './track-uploader';

interface Received {
  track: string;
  segment?: string;
  size: number;
  verified: boolean;
  matches: boolean;
}

/** A stand-in gateway that checks signatures and bytes like the real route does. */
type Answer = number | { status: number; retryAfter?: string };

async function fakeGateway(
  tape: PublicKey,
  answer: (req: Received, n: number, inFlight: number) => Answer,
) {
  const received: Received[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((req: IncomingMessage, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const track = decodeURIComponent(req.url!.replace('/upload/', ''));
      const segment = req.headers[UPLOAD_HEADERS.segment] as string | undefined;
      const commitment = commitmentOfBuffer(body).commitment.toString('hex');
      const verified = verifyUpload(
        { tape: tape.toBase58(), track, commitment, size: body.length },
        {
          signer: req.headers[UPLOAD_HEADERS.signer] as string,
          timestamp: req.headers[UPLOAD_HEADERS.timestamp] as string,
          signature: req.headers[UPLOAD_HEADERS.signature] as string,
        },
      ).ok;
      const r: Received = {
        track,
        segment,
        size: body.length,
        verified,
        matches: !segment || segment === commitment,
      };
      received.push(r);
      const given = answer(r, received.length, inFlight);
      const { status, retryAfter } = typeof given === 'number' ? { status: given } : given;
      setTimeout(() => {
        inFlight--;
        res.statusCode = status;
        if (retryAfter !== undefined) res.setHeader('retry-after', retryAfter);
        res.setHeader('content-type', 'application/json');
        res.end(
          status === 200
            ? '{"certified":true}'
            : JSON.stringify({ error: { code: 'x', message: 'nope' } }),
        );
      }, 5);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    maxInFlight: () => maxInFlight,
    close: () => new Promise((r) => server.close(r)),
  };
}

describe('TrackUploader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tape-upload-'));
  const tape = Keypair.generate().publicKey;
  const signer = Keypair.generate();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function plannedTrack(
    name: string,
    bytes: Buffer,
    segmentBytes = 1024 * 1024,
  ): Promise<PlannedTrack> {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    const layout = await splitFileIntoTracks(path, segmentBytes);
    const commitment =
      layout.kind === 'blob' ? layout.digest.commitment : layout.manifestDigest.commitment;
    return {
      commitmentHex: commitment.toString('hex'),
      commitment,
      address: Keypair.generate().publicKey,
      size: layout.size,
      kind: layout.kind === 'blob' ? TrackKind.Blob : TrackKind.Manifest,
      contentType: 'text/plain',
      layout,
      path,
      exists: true,
      certified: false,
    };
  }

  it('sends a blob signed by the tape signer, with bytes that match the commitment', async () => {
    const gw = await fakeGateway(tape, () => 200);
    const client = new GatewayClient(gw.url);
    const sent: number[] = [];
    const t = await plannedTrack('a.txt', Buffer.from('hello'));
    await new TrackUploader(client, tape, signer, {
      concurrency: 4,
      onBytes: (n) => sent.push(n),
    }).upload(t, 'a.txt');
    client.close();
    await gw.close();
    expect(gw.received).toEqual([
      { track: t.address.toBase58(), segment: undefined, size: 5, verified: true, matches: true },
    ]);
    expect(sent).toEqual([5]);
  });

  it('sends every segment of a big file, then its manifest', async () => {
    const gw = await fakeGateway(tape, () => 200);
    const client = new GatewayClient(gw.url);
    const t = await plannedTrack('big.bin', Buffer.alloc(64 * 1024 * 3 + 5, 1), 64 * 1024);
    await new TrackUploader(client, tape, signer, { concurrency: 2 }).upload(t, 'big.bin');
    client.close();
    await gw.close();
    expect(gw.received).toHaveLength(5);
    expect(gw.received.slice(0, 4).every((r) => r.segment && r.verified && r.matches)).toBe(true);
    expect(
      gw.received
        .slice(0, 4)
        .map((r) => r.size)
        .sort((a, b) => a - b),
    ).toEqual([5, 65536, 65536, 65536]);
    const last = gw.received[4];
    expect(last.segment).toBeUndefined();
    expect(last.verified).toBe(true);
    expect(t.layout.kind === 'manifest' && last.size).toBe(
      t.layout.kind === 'manifest' ? t.layout.manifestBytes.length : -1,
    );
  });

  it('retries while the gateway is busy or has not seen the track yet', async () => {
    const gw = await fakeGateway(tape, (_r, n) => (n === 1 ? 404 : n === 2 ? 503 : 200));
    const client = new GatewayClient(gw.url);
    await new TrackUploader(client, tape, signer, { concurrency: 1 }).upload(
      await plannedTrack('r.txt', Buffer.from('r')),
      'r.txt',
    );
    client.close();
    await gw.close();
    expect(gw.received).toHaveLength(3);
  });

  it.each([
    [422, /^r\.txt changed during the deploy/],
    [403, /^unauthorized signer: /],
    [410, /^tape \S+ expired: it cannot be extended, resized or written to.*tape create/],
    [400, /refused r\.txt: 400 x: nope$/],
  ])('turns a %d into one clear line', async (status, message) => {
    const gw = await fakeGateway(tape, () => status);
    const client = new GatewayClient(gw.url);
    await expect(
      new TrackUploader(client, tape, signer, { concurrency: 1 }).upload(
        await plannedTrack('r.txt', Buffer.from('r')),
        'r.txt',
      ),
    ).rejects.toThrow(message);
    client.close();
    await gw.close();
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    const gw = await fakeGateway(tape, () => 200);
    const client = new GatewayClient(gw.url);
    const uploader = new TrackUploader(client, tape, signer, { concurrency: 3 });
    const tracks = await Promise.all(
      Array.from({ length: 12 }, (_, i) => plannedTrack(`c${i}.txt`, Buffer.from(`c${i}`))),
    );
    await Promise.all(tracks.map((t, i) => uploader.upload(t, `c${i}.txt`)));
    client.close();
    await gw.close();
    expect(gw.received).toHaveLength(12);
    expect(gw.maxInFlight()).toBeLessThanOrEqual(3);
  });

  it('names the gateway URL when nothing listens there', async () => {
    const client = new GatewayClient('http://127.0.0.1:1');
    await expect(client.uploadConfig()).rejects.toThrow(
      'cannot reach the gateway at http://127.0.0.1:1 (ECONNREFUSED)',
    );
    client.close();
  });
  describe('on a busy gateway', () => {
    const upload = async (
      gw: { url: string },
      options: Partial<UploaderOptions> = {},
      files = 1,
    ): Promise<number> => {
      const client = new GatewayClient(gw.url);
      const uploader = new TrackUploader(client, tape, signer, { concurrency: 1, ...options });
      const tracks = await Promise.all(
        Array.from({ length: files }, (_, i) => plannedTrack(`busy${i}.txt`, Buffer.from(`b${i}`))),
      );
      const started = Date.now();
      try {
        await Promise.all(tracks.map((t, i) => uploader.upload(t, `busy${i}.txt`)));
      } finally {
        client.close();
      }
      return Date.now() - started;
    };

    it('waits the Retry-After seconds of a 429 before asking again', async () => {
      const gw = await fakeGateway(tape, (_r, n) =>
        n === 1 ? { status: 429, retryAfter: '1' } : 200,
      );
      const waits: [number, number][] = [];
      const took = await upload(gw, { onWait: (s, ms) => waits.push([s, ms]) });
      await gw.close();
      expect(gw.received).toHaveLength(2);
      expect(took).toBeGreaterThanOrEqual(1000);
      expect(waits).toHaveLength(1);
      expect(waits[0][0]).toBe(429);
      expect(waits[0][1]).toBeGreaterThanOrEqual(1000);
      expect(waits[0][1]).toBeLessThanOrEqual(1100);
    });

    it('takes Retry-After as an HTTP date', async () => {
      const gw = await fakeGateway(tape, (_r, n) =>
        n === 1 ? { status: 429, retryAfter: new Date(Date.now() + 2000).toUTCString() } : 200,
      );
      const took = await upload(gw);
      await gw.close();
      expect(gw.received).toHaveLength(2);
      // The date has whole seconds: somewhere between 1 and 2 s from the refusal.
      expect(took).toBeGreaterThanOrEqual(900);
    });

    it('keeps asking through many 503s (more than the old 5 attempts) with a backoff', async () => {
      const gw = await fakeGateway(tape, (_r, n) => (n <= 8 ? 503 : 200));
      await upload(gw, { backoffBaseMs: 10 });
      await gw.close();
      expect(gw.received).toHaveLength(9);
    });

    it('gives up with one clear line once the wait budget of a request is spent', async () => {
      const gw = await fakeGateway(tape, () => ({ status: 429, retryAfter: '1' }));
      await expect(upload(gw, { maxWaitMs: 2500 })).rejects.toThrow(
        /^the gateway at http:\/\/127\.0\.0\.1:\d+ kept refusing busy0\.txt \(429 x: nope\) after 2s of waiting; it asks for 1s more; run tape deploy again later, or allow a longer wait with --max-wait \(now 3s\)$/,
      );
      await gw.close();
      expect(gw.received).toHaveLength(3);
    });

    it('fits its uploads in flight to what the gateway accepts (429 over 2 at once)', async () => {
      const gw = await fakeGateway(tape, (_r, _n, inFlight) =>
        inFlight > 2 ? { status: 429, retryAfter: '1' } : 200,
      );
      await upload(gw, { concurrency: 32 }, 40);
      await gw.close();
      const accepted = gw.received.length - 40;
      expect(gw.received.filter((r) => r.verified).length).toBe(gw.received.length);
      // 40 uploads at 32 at once would be refused 30 times on the first round alone and again
      // on every round after; the pacer narrows to 2 and the refusals stay few.
      expect(accepted).toBeLessThan(60);
      // Seconds of Retry-After waits by design: more than Jest's 5 s default on a loaded machine.
    }, 20_000);
  });
});
