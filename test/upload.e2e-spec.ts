import { Keypair, PublicKey } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { commitmentToHex } from '../src/tracks/commitment';
import { SegmentingHasher } from '../src/tracks/track-layout';
import { signUpload } from '../src/upload/upload-auth';
import { ObjectFixture, startObjectFixture } from './support/object-fixture';
import { rawRequest, storedTrackPath } from './support/object-http';
import { PutReply, WrittenTrack } from './support/upload-client';
import { eventually } from './support/eventually';

/**
 * PUT /upload/{track} against the built gateway: what is accepted, what is refused, and that a
 * refused or interrupted upload leaves no file and certifies nothing. 256 KiB segments.
 */
const S = 262144;
let fx: ObjectFixture;

beforeAll(async () => {
  fx = await startObjectFixture({
    env: {
      TAPE__STORAGE__SEGMENT_BYTES: String(S),
      TAPE__GATEWAY__METERING__UPLOAD__LIMIT: '5000',
      TAPE__GATEWAY__METERING__UPLOAD__TTL_SECS: '60',
    },
  });
}, 60_000);

afterAll(async () => {
  await fx?.stop();
});

async function written(bytes: Buffer, contentType = 'application/octet-stream') {
  const layout = new SegmentingHasher(S).update(bytes).digest();
  return fx.client.writeTrack(fx.wallet, fx.tape, layout, contentType);
}
const ownCommitment = (track: WrittenTrack) =>
  track.layout.kind === 'blob'
    ? track.layout.digest.commitment
    : track.layout.manifestDigest.commitment;

function expectRefused(reply: PutReply, status: number, code: string) {
  expect([reply.status, reply.body.error?.code]).toEqual([status, code]);
}

/** What the gateway keeps on disk of `track`: its stored file, and upload temporaries. */
function keptOnDisk(track: WrittenTrack): { stored: boolean; parts: string[] } {
  return {
    stored: existsSync(storedTrackPath(fx.gw.dataDir, ownCommitment(track))),
    parts: readdirSync(join(fx.gw.dataDir, 'tracks', '.tmp')).filter((f) => f.endsWith('.part')),
  };
}

function nothingOnDisk(track: WrittenTrack): boolean {
  const kept = keptOnDisk(track);
  return !kept.stored && kept.parts.length === 0;
}

/** Nothing of the track in the store, no temporary file left, not certified on chain. */
async function expectNothingKept(track: WrittenTrack) {
  const kept = keptOnDisk(track);
  expect(kept.stored).toBe(false);
  expect(kept.parts).toEqual([]);
  expect((await fx.client.chain.reader.getTrack(track.address))?.certified).toBe(false);
}

describe('PUT /upload/{track}', () => {
  it('stores and certifies a blob signed by the tape key; the object route then serves it', async () => {
    const bytes = randomBytes(10_000);
    const track = await written(bytes, 'text/css');
    const reply = await fx.client.put(track, bytes);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      track: track.address.toBase58(),
      commitment: commitmentToHex(ownCommitment(track)),
      size: bytes.length,
      certified: true,
    });
    expect((await fx.client.chain.reader.getTrack(track.address))?.certified).toBe(true);
    const res = await rawRequest(fx.objectUrl(track.address));
    expect([res.status, res.body.equals(bytes), res.headers['content-type']]).toEqual([
      200,
      true,
      'text/css',
    ]);
    // Uploading again is harmless.
    expect((await fx.client.put(track, bytes)).status).toBe(200);
  });

  it('accepts the tape delegate as signer', async () => {
    const delegate = Keypair.generate();
    await fx.client.chain.writer.send(
      [
        fx.client.chain.ix.setDelegate({
          authority: fx.tape.keypair.publicKey,
          delegate: delegate.publicKey,
        }),
      ],
      [fx.wallet, fx.tape.keypair],
    );
    const bytes = randomBytes(2000);
    const track = await written(bytes);
    expect((await fx.client.put(track, bytes, { signer: delegate })).status).toBe(200);
  });

  it('refuses a bad signature (401) and nothing is kept', async () => {
    const bytes = randomBytes(3000);
    const track = await written(bytes);
    // Signed over other bytes' commitment: the signature does not match this request.
    expectRefused(
      await fx.client.put(track, bytes, { claim: { commitment: 'ab'.repeat(32) } }),
      401,
      'unauthorized',
    );
    const forged = signUpload(
      {
        tape: fx.tape.address.toBase58(),
        track: track.address.toBase58(),
        commitment: commitmentToHex(ownCommitment(track)),
        size: bytes.length,
      },
      Keypair.generate(),
    );
    expectRefused(
      await fx.client.put(track, bytes, {
        headers: { 'x-tape-signature': forged['x-tape-signature'] },
      }),
      401,
      'unauthorized',
    );
    expectRefused(
      await fx.client.put(track, bytes, { headers: { 'x-tape-signature': 'not base58 0OIl' } }),
      400,
      'bad_request',
    );
    expectRefused(
      await fx.client.put(track, bytes, { headers: { 'x-tape-signer': undefined } }),
      400,
      'bad_request',
    );
    await expectNothingKept(track);
  });

  it('refuses a stale or future timestamp (401)', async () => {
    const bytes = randomBytes(3000);
    const track = await written(bytes);
    for (const skew of [-6 * 60_000, 6 * 60_000]) {
      expectRefused(
        await fx.client.put(track, bytes, { timestamp: Date.now() + skew }),
        401,
        'unauthorized',
      );
    }
    await expectNothingKept(track);
  });

  it("refuses another tape's key (403)", async () => {
    const bytes = randomBytes(3000);
    const track = await written(bytes);
    const other = await fx.client.createTape(fx.wallet, 1 << 20, 10);
    expectRefused(await fx.client.put(track, bytes, { signer: other.keypair }), 403, 'forbidden');
    await expectNothingKept(track);
  });

  it('refuses the wrong size (400) and the wrong hash (422), keeping nothing', async () => {
    const bytes = randomBytes(5000);
    const track = await written(bytes);
    expectRefused(
      await fx.client.put(track, Buffer.concat([bytes, Buffer.from('x')])),
      400,
      'bad_request',
    );
    expectRefused(await fx.client.put(track, bytes.subarray(1)), 400, 'bad_request');
    const lying = Buffer.from(bytes);
    lying[4999] ^= 1;
    // Signed over the real commitment and size: only the bytes lie.
    expectRefused(
      await fx.client.put(track, lying, {
        claim: { commitment: commitmentToHex(ownCommitment(track)) },
      }),
      422,
      'commitment_mismatch',
    );
    await expectNothingKept(track);
  });

  it('refuses malformed requests with 400 and unknown tracks with 404', async () => {
    const bytes = randomBytes(100);
    const track = await written(bytes);
    let uploadLimit: string | string[] | undefined;
    const put = (address: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          `${fx.gw.url}/upload/${address}`,
          { method: 'PUT', headers: { 'content-length': '1' } },
          (res) => {
            res.resume();
            uploadLimit = res.headers['ratelimit-limit'];
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('x');
      });
    expect(await put('not-an-address')).toBe(400);
    expect(uploadLimit).toBe('5000'); // the route is metered against the upload budget
    expect(await put(Keypair.generate().publicKey.toBase58())).toBe(404);
    // Chunked (no Content-Length) is refused: the size must be declared up front.
    expectRefused(
      await fx.client.put(track, bytes, {
        headers: { 'content-length': undefined, 'transfer-encoding': 'chunked' },
      }),
      400,
      'bad_request',
    );
    // A segment header on a blob track.
    expectRefused(
      await fx.client.put(track, bytes, { segment: 'ab'.repeat(32) }),
      400,
      'bad_request',
    );
  });

  it('a manifest uploaded before its segments is refused (409), then certified once they are in', async () => {
    const bytes = randomBytes(2 * S + 10);
    const track = await written(bytes, 'video/mp4');
    if (track.layout.kind !== 'manifest') throw new Error('expected a streamed object');
    expectRefused(await fx.client.put(track, track.layout.manifestBytes), 409, 'conflict');
    expect((await fx.client.chain.reader.getTrack(track.address))?.certified).toBe(false);
    // A segment over the segment size is refused before its bytes are read.
    expectRefused(
      await fx.client.put(track, randomBytes(S + 1), { segment: 'cd'.repeat(32) }),
      413,
      'payload_too_large',
    );
    await fx.client.uploadAll(track, bytes);
    expect((await fx.client.chain.reader.getTrack(track.address))?.certified).toBe(true);
    const res = await rawRequest(fx.objectUrl(track.address));
    expect([res.status, res.body.equals(bytes)]).toEqual([200, true]);
  });

  it('an upload interrupted mid-body leaves no file and certifies nothing', async () => {
    const bytes = randomBytes(3 * 65536);
    const track = await written(bytes);
    const headers = {
      ...signUpload(
        {
          tape: fx.tape.address.toBase58(),
          track: track.address.toBase58(),
          commitment: commitmentToHex(ownCommitment(track)),
          size: bytes.length,
        },
        fx.tape.keypair,
      ),
      'content-length': String(bytes.length),
    };
    await new Promise<void>((resolve) => {
      const req = http.request(`${fx.gw.url}/upload/${track.address.toBase58()}`, {
        method: 'PUT',
        headers,
        agent: false,
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write(bytes.subarray(0, 100_000), () => setTimeout(() => req.destroy(), 200));
    });
    await eventually('the aborted upload cleaned up', () => nothingOnDisk(track));
    await expectNothingKept(track);
    expect((await rawRequest(fx.objectUrl(track.address))).status).toBe(400);
  });

  it('a full tape: WriteTrack is refused on chain with insufficient capacity; nothing to upload', async () => {
    const small = await fx.client.createTape(fx.wallet, 100_000, 10);
    const fits = randomBytes(60_000);
    const first = new SegmentingHasher(S).update(fits).digest();
    const track = await fx.client.writeTrack(fx.wallet, small, first, 'a/b');
    expect((await fx.client.put(track, fits)).status).toBe(200);
    const tooMuch = new SegmentingHasher(S).update(randomBytes(60_000)).digest();
    await expect(fx.client.writeTrack(fx.wallet, small, tooMuch, 'a/b')).rejects.toThrow(
      'insufficient capacity',
    );
    const refused: WrittenTrack = {
      address: fx.client.chain.ix.pdas.track(
        small.address,
        tooMuch.kind === 'blob' ? tooMuch.digest.commitment : Buffer.alloc(32),
      ),
      tape: small,
      layout: tooMuch,
    };
    expect(refused.address).toBeInstanceOf(PublicKey);
    expectRefused(await fx.client.put(refused, randomBytes(60_000)), 404, 'not_found');
  });
});
