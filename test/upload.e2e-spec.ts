import { Keypair } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { UploadSigner } from '../src/cli/deploy/upload-signer';
import { SegmentingHasher } from '../src/tracks/track-layout';
import { versionUploadMessage } from '../src/upload/version-request-auth';
import { ObjectFixture, startObjectFixture } from './support/labs/object-fixture';
import { rawRequest, storedTrackPath } from './support/clients/object-http';
import { PutReply, WrittenTrack } from './support/clients/upload-client';
import { eventually } from './support/jest/eventually';

/**
 * PUT /upload/{tape}/{commitment} (a version's bytes, staged before any version names them)
 * against the built gateway: what is accepted, what is refused, and that a refused or
 * interrupted upload leaves no file and nothing servable. 256 KiB segments.
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

function described(bytes: Buffer): WrittenTrack {
  return fx.client.track(fx.tape, new SegmentingHasher(S).update(bytes).digest());
}

function expectRefused(reply: PutReply, status: number, code: string) {
  expect([reply.status, reply.body.error?.code]).toEqual([status, code]);
}

/** What the gateway keeps on disk of `track`: its stored file, and upload temporaries. */
function keptOnDisk(track: WrittenTrack): { stored: boolean; parts: string[] } {
  return {
    stored: existsSync(storedTrackPath(fx.gw.dataDir, Buffer.from(track.commitment, 'hex'))),
    parts: readdirSync(join(fx.gw.dataDir, 'tracks', '.tmp')).filter((f) => f.endsWith('.part')),
  };
}

function nothingOnDisk(track: WrittenTrack): boolean {
  const kept = keptOnDisk(track);
  return !kept.stored && kept.parts.length === 0;
}

/** Nothing of the track in the store, no temporary file left, nothing served. */
async function expectNothingKept(track: WrittenTrack) {
  const kept = keptOnDisk(track);
  expect(kept.stored).toBe(false);
  expect(kept.parts).toEqual([]);
  expect((await rawRequest(fx.objectUrl(track.address))).status).toBe(400);
}

describe('PUT /upload/{tape}/{commitment}', () => {
  it('stages bytes signed by the tape key; served only once a published version names them', async () => {
    const bytes = randomBytes(10_000);
    const track = described(bytes);
    const reply = await fx.client.put(track, bytes);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      tape: fx.tape.address.toBase58(),
      commitment: track.commitment,
      size: bytes.length,
      staged: true,
    });
    expect(keptOnDisk(track).stored).toBe(true);
    // Staged is not certified: no version names it.
    expect((await rawRequest(fx.objectUrl(track.address))).status).toBe(400);
    await fx.client.store(fx.wallet, fx.tape, bytes, 'text/css', S);
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
    expect((await fx.client.put(described(bytes), bytes, { signer: delegate })).status).toBe(200);
  });

  it('refuses a bad signature (401) and nothing is kept', async () => {
    const bytes = randomBytes(3000);
    const track = described(bytes);
    // Signed over other bytes' commitment: the signature does not match this request.
    expectRefused(
      await fx.client.put(track, bytes, { claim: { commitment: 'ab'.repeat(32) } }),
      401,
      'unauthorized',
    );
    const forged = new UploadSigner(Keypair.generate()).signed((timestamp) =>
      versionUploadMessage({
        tape: fx.tape.address.toBase58(),
        commitment: track.commitment,
        size: bytes.length,
        timestamp,
      }),
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
    const track = described(bytes);
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
    const track = described(bytes);
    const other = await fx.client.createTape(fx.wallet, 1 << 20, 10);
    expectRefused(await fx.client.put(track, bytes, { signer: other.keypair }), 403, 'forbidden');
    await expectNothingKept(track);
  });

  it('refuses bytes that are not the commitment (422) or not the signed size (401), keeping nothing', async () => {
    const bytes = randomBytes(5000);
    const track = described(bytes);
    const lying = Buffer.from(bytes);
    lying[4999] ^= 1;
    // Signed over the real commitment and size: only the bytes lie.
    expectRefused(await fx.client.put(track, lying), 422, 'commitment_mismatch');
    expectRefused(
      await fx.client.put(track, Buffer.concat([bytes, Buffer.from('x')])),
      422,
      'commitment_mismatch',
    );
    // Signed for 5000 bytes, sent as 4999: the signature covers the size.
    expectRefused(
      await fx.client.put(track, bytes.subarray(1), { claim: { size: bytes.length } }),
      401,
      'unauthorized',
    );
    await expectNothingKept(track);
  });

  it('refuses malformed requests with 400, unknown tapes with 404, a body over any track with 413', async () => {
    const bytes = randomBytes(100);
    const track = described(bytes);
    let uploadLimit: string | string[] | undefined;
    const put = (target: string, length = '1') =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          `${fx.gw.url}/upload/${target}`,
          { method: 'PUT', headers: { 'content-length': length } },
          (res) => {
            res.resume();
            uploadLimit = res.headers['ratelimit-limit'];
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('x');
      });
    expect(await put(`not-an-address/${track.commitment}`)).toBe(400);
    expect(uploadLimit).toBe('5000'); // the route is metered against the upload budget
    expect(await put(`${fx.tape.address.toBase58()}/not-hex`)).toBe(400);
    expect(await put(`${fx.tape.address.toBase58()}/${track.commitment.toUpperCase()}`)).toBe(400);
    // A 32-byte track address (the per-file route, removed in 1.2.0) is no route at all.
    expect(await put(Keypair.generate().publicKey.toBase58())).toBe(404);
    const unknownTape = await fx.client.put(
      { ...track, tape: { keypair: fx.tape.keypair, address: Keypair.generate().publicKey } },
      bytes,
    );
    expectRefused(unknownTape, 404, 'not_found');
    // Chunked (no Content-Length) is refused: the size must be declared up front.
    expectRefused(
      await fx.client.put(track, bytes, {
        headers: { 'content-length': undefined, 'transfer-encoding': 'chunked' },
      }),
      400,
      'bad_request',
    );
    // Over the largest track (a 64 MiB segment manifest): refused before the bytes are read.
    expect(
      await put(`${fx.tape.address.toBase58()}/${track.commitment}`, String(64 * 1024 * 1024 + 1)),
    ).toBe(413);
  });

  it('an upload interrupted mid-body leaves no file and nothing servable', async () => {
    const bytes = randomBytes(3 * 65536);
    const track = described(bytes);
    const tape = fx.tape.address.toBase58();
    const headers = {
      ...new UploadSigner(fx.tape.keypair).signed((timestamp) =>
        versionUploadMessage({ tape, commitment: track.commitment, size: bytes.length, timestamp }),
      ),
      'content-length': String(bytes.length),
    };
    await new Promise<void>((resolve) => {
      const req = http.request(`${fx.gw.url}/upload/${tape}/${track.commitment}`, {
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
  });
});
