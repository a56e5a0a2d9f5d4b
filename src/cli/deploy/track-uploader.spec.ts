import { Keypair, PublicKey } from '@solana/web3.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TrackKind } from '../../chain/account-layouts';
import { commitmentOfBuffer } from '../../tracks/commitment';
import { splitFileIntoTracks } from '../../tracks/track-layout';
import { UPLOAD_HEADERS, verifyUpload } from '../../tracks/upload-auth';
import { PlannedTrack } from './deploy-planner';
import { GatewayClient } from './gateway-client';
import { TrackUploader } from './track-uploader';

interface Received {
  track: string;
  segment?: string;
  size: number;
  verified: boolean;
  matches: boolean;
}

/** A stand-in gateway that checks signatures and bytes like the real route does. */
async function fakeGateway(tape: PublicKey, answer: (req: Received, n: number) => number) {
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
      const status = answer(r, received.length);
      setTimeout(() => {
        inFlight--;
        res.statusCode = status;
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
    await new TrackUploader(client, tape, signer, 4, (n) => sent.push(n)).upload(t, 'a.txt');
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
    await new TrackUploader(client, tape, signer, 2).upload(t, 'big.bin');
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
    await new TrackUploader(client, tape, signer, 1).upload(
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
    [410, /^tape expired \(fix: tape extend --duration <time>\)$/],
    [400, /refused r\.txt: 400 x: nope$/],
  ])('turns a %d into one clear line', async (status, message) => {
    const gw = await fakeGateway(tape, () => status);
    const client = new GatewayClient(gw.url);
    await expect(
      new TrackUploader(client, tape, signer, 1).upload(
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
    const uploader = new TrackUploader(client, tape, signer, 3);
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
});
