import {
  AbortMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  expectContinue,
  RawResponse,
  requestHead,
  signedRequest,
  writeAllThenRead,
} from './support/clients/s3-raw-http';
import { encodeKeyPath, signWithHeader } from './support/clients/s3-signing';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';
import { tapeWithCredential, TapeWithCredential } from './support/labs/s3-tape-lab';

/**
 * Issue 15, finding 3: multipart parts are budgeted before they are spooled. A part must
 * declare its length (411 otherwise); the parts of every open upload of a tape, plus the part
 * arriving, must fit the tape's free capacity (507); all tapes together stay within
 * gateway.s3.max_spool_bytes (503 SlowDown); a body longer than it declared is cut off. In every
 * refusal nothing is left in the spool. Issue 34, finding 3: one tape holds at most its share of
 * the spool (gateway.s3.spool_share_per_tape), so other tapes still write.
 */
jest.setTimeout(180_000);

const KiB = 1024;
const MiB = 1024 * KiB;
const SPOOL_CAP = 12 * MiB;
/** gateway.s3.spool_share_per_tape here: one tape holds at most 9 MiB of the 12. */
const SHARE = 0.75;
const TAPE_SHARE = SPOOL_CAP * SHARE;

const fx = useS3TapeFixture({
  config: {
    localnet: { slot_ms: 100 },
    gateway: { s3: { max_spool_bytes: SPOOL_CAP, spool_share_per_tape: SHARE } },
  },
  ownDataDir: true,
  tapes: 2,
});
const s3Port = () => Number(new URL(fx.lab.gw.s3Url).port);

/** What the multipart spool holds for one upload (`upload.json` alone: no part, no part file). */
const uploadFiles = (uploadId: string) =>
  readdirSync(join(fx.dataDir, 's3-multipart', uploadId)).sort();
const spoolFiles = () => readdirSync(join(fx.dataDir, 's3-spool'));

async function create(t: TapeWithCredential, key: string): Promise<string> {
  const created = await fx
    .client(t)
    .send(new CreateMultipartUploadCommand({ Bucket: t.label, Key: key }));
  return created.UploadId!;
}

async function abort(t: TapeWithCredential, key: string, uploadId: string): Promise<void> {
  await fx
    .client(t)
    .send(new AbortMultipartUploadCommand({ Bucket: t.label, Key: key, UploadId: uploadId }));
}

/** UploadPart over node:http (no SDK retries), with exactly the headers given. */
function putPart(
  t: TapeWithCredential,
  key: string,
  uploadId: string,
  partNumber: number,
  body: Buffer,
  headers: Record<string, string> = {
    'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
    'content-length': String(body.length),
  },
): Promise<RawResponse> {
  return signedRequest(s3Port(), {
    method: 'PUT',
    path: `${encodeKeyPath(t.label, key)}?partNumber=${partNumber}&uploadId=${uploadId}`,
    headers,
    body,
    accessKeyId: t.accessKeyId,
    secret: t.secret,
  });
}

/**
 * UploadPart with `Expect: 100-continue` over a raw socket, for parts that should be refused:
 * whether the gateway asked for the body, and its answer.
 */
async function refusedPart(
  t: TapeWithCredential,
  key: string,
  uploadId: string,
  partNumber: number,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ sentBody: boolean; status: number; code: string | undefined; text: string }> {
  const path = encodeKeyPath(t.label, key);
  const query = { partNumber: String(partNumber), uploadId };
  const signed = await signWithHeader({
    method: 'PUT',
    path,
    query,
    host: `127.0.0.1:${s3Port()}`,
    headers: { ...headers, expect: '100-continue' },
    date: new Date(),
    accessKeyId: t.accessKeyId,
    secret: t.secret,
  });
  const head = requestHead('PUT', `${path}?${signed.rawQuery}`, signed.rawHeaders);
  const { interim, response } = await expectContinue(s3Port(), head, body);
  return {
    sentBody: interim,
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]),
    code: /<Code>([^<]+)<\/Code>/.exec(response)?.[1],
    text: response,
  };
}

const CHUNKED_UNSIGNED = {
  'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
  'transfer-encoding': 'chunked',
};

function codeOf(res: RawResponse): [number, string | undefined] {
  return [res.status, /<Code>([^<]+)<\/Code>/.exec(res.body)?.[1]];
}

describe('multipart spool budget', () => {
  it('a chunked UploadPart without a declared length is 411 MissingContentLength and spools nothing', async () => {
    const uploadId = await create(fx.site, 'no-length.bin');
    const plain = await putPart(fx.site, 'no-length.bin', uploadId, 1, randomBytes(MiB), {
      ...CHUNKED_UNSIGNED,
    });
    expect(codeOf(plain)).toEqual([411, 'MissingContentLength']);
    // aws-chunked without x-amz-decoded-content-length: the same answer.
    const framed = Buffer.concat([
      Buffer.from(`${MiB.toString(16)}\r\n`),
      randomBytes(MiB),
      Buffer.from('\r\n0\r\n\r\n'),
    ]);
    const awsChunked = await putPart(fx.site, 'no-length.bin', uploadId, 2, framed, {
      'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      'content-encoding': 'aws-chunked',
      'content-length': String(framed.length),
    });
    expect(codeOf(awsChunked)).toEqual([411, 'MissingContentLength']);
    expect(uploadFiles(uploadId)).toEqual(['upload.json']);
    await abort(fx.site, 'no-length.bin', uploadId);
  });

  it('three 4 MiB parts onto a tape with ~843 KiB free are refused, declared or not, and nothing is spooled', async () => {
    const small = await tapeWithCredential(fx.lab, { capacity: '1m' });
    await fx.client(small).send(
      new PutObjectCommand({
        Bucket: small.label,
        Key: 'taken.bin',
        Body: randomBytes(181 * KiB),
      }),
    );
    const uploadId = await create(small, 'big.bin');
    for (const n of [1, 2, 3]) {
      const part = randomBytes(4 * MiB);
      const declared = await refusedPart(
        small,
        'big.bin',
        uploadId,
        n,
        { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'content-length': String(part.length) },
        part,
      );
      expect([declared.sentBody, declared.status, declared.code]).toEqual([
        false,
        507,
        'InsufficientStorage',
      ]);
      expect(declared.text).toContain('insufficient capacity');
      const undeclared = await refusedPart(small, 'big.bin', uploadId, n, CHUNKED_UNSIGNED, part);
      expect([undeclared.sentBody, undeclared.status, undeclared.code]).toEqual([
        false,
        411,
        'MissingContentLength',
      ]);
    }
    expect(uploadFiles(uploadId)).toEqual(['upload.json']);
    expect(spoolFiles()).toEqual([]);
  });

  it('the parts of every open upload of a tape count together against its free capacity', async () => {
    const tight = await tapeWithCredential(fx.lab, { capacity: '8m' });
    const first = await create(tight, 'a.bin');
    const second = await create(tight, 'b.bin');
    expect((await putPart(tight, 'a.bin', first, 1, randomBytes(4.5 * MiB))).status).toBe(200);
    // On its own the part fits (8 MiB free); with the first upload's 4.5 MiB it does not (and
    // both together stay within the tape's 9 MiB share of the spool).
    const refused = await putPart(tight, 'b.bin', second, 1, randomBytes(4.5 * MiB));
    expect(codeOf(refused)).toEqual([507, 'InsufficientStorage']);
    expect(refused.body).toContain('multipart upload in progress');
    expect(uploadFiles(second)).toEqual(['upload.json']);
    // Aborting the first upload gives its room back.
    await abort(tight, 'a.bin', first);
    expect((await putPart(tight, 'b.bin', second, 1, randomBytes(4.5 * MiB))).status).toBe(200);
    await abort(tight, 'b.bin', second);
  });

  it('a body longer than it declared is cut off and refused, leaving nothing spooled', async () => {
    const uploadId = await create(fx.site, 'liar.bin');
    // Declares 1 MiB, sends 3 MiB of aws-chunked data.
    const framed = Buffer.concat([
      ...[0, 1, 2].flatMap(() => [
        Buffer.from(`${MiB.toString(16)}\r\n`),
        randomBytes(MiB),
        Buffer.from('\r\n'),
      ]),
      Buffer.from('0\r\n\r\n'),
    ]);
    const res = await putPart(fx.site, 'liar.bin', uploadId, 1, framed, {
      'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      'content-encoding': 'aws-chunked',
      'x-amz-decoded-content-length': String(MiB),
      'content-length': String(framed.length),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatch(/<Code>(InvalidRequest|IncompleteBody|EntityTooLarge)<\/Code>/);
    expect(uploadFiles(uploadId)).toEqual(['upload.json']);
    // The refused part gave its budget back: the tape's whole share is available again.
    expect((await putPart(fx.site, 'liar.bin', uploadId, 1, randomBytes(TAPE_SHARE))).status).toBe(
      200,
    );
    await abort(fx.site, 'liar.bin', uploadId);
  });

  it('a refused part sent whole without Expect is read to its end and answered, not reset', async () => {
    // A client that does not wait for 100 Continue has its body on the wire when the refusal
    // is written. The gateway reads and discards it after the answer (lingering close), so the
    // whole write succeeds and the client sees the 503 instead of EPIPE/ECONNRESET.
    const held = await create(fx.site, 'held-whole.bin');
    expect((await putPart(fx.site, 'held-whole.bin', held, 1, randomBytes(8 * MiB))).status).toBe(
      200,
    );
    const waiting = await create(fx.tapes[1], 'whole.bin');
    const body = randomBytes(5 * MiB);
    const path = encodeKeyPath(fx.tapes[1].label, 'whole.bin');
    const signed = await signWithHeader({
      method: 'PUT',
      path,
      query: { partNumber: '1', uploadId: waiting },
      host: `127.0.0.1:${s3Port()}`,
      headers: {
        'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
        'content-length': String(body.length),
      },
      date: new Date(),
      accessKeyId: fx.tapes[1].accessKeyId,
      secret: fx.tapes[1].secret,
    });
    const head = requestHead('PUT', `${path}?${signed.rawQuery}`, signed.rawHeaders);
    // Five times over: a reset that loses the answer was a race, seen about once in ten runs
    // of a single request, so one request passing would prove little.
    for (let i = 0; i < 5; i++) {
      const { writeError, response } = await writeAllThenRead(
        s3Port(),
        Buffer.concat([Buffer.from(head, 'latin1'), body]),
      );
      expect(writeError).toBeUndefined();
      expect(response).toMatch(/^HTTP\/1\.1 503 /);
      expect(response).toMatch(/<Code>SlowDown<\/Code>/);
      expect(response.toLowerCase()).toContain('connection: close');
    }
    expect(uploadFiles(waiting)).toEqual(['upload.json']);
    await abort(fx.site, 'held-whole.bin', held);
    await abort(fx.tapes[1], 'whole.bin', waiting);
  });

  it('past gateway.s3.max_spool_bytes over all tapes a part is 503 SlowDown, until room is given back', async () => {
    const held = await create(fx.site, 'held.bin');
    expect((await putPart(fx.site, 'held.bin', held, 1, randomBytes(8 * MiB))).status).toBe(200);
    const waiting = await create(fx.tapes[1], 'waiting.bin');
    const refused = await putPart(fx.tapes[1], 'waiting.bin', waiting, 1, randomBytes(5 * MiB));
    expect(codeOf(refused)).toEqual([503, 'SlowDown']);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(uploadFiles(waiting)).toEqual(['upload.json']);
    await abort(fx.site, 'held.bin', held);
    expect(
      (await putPart(fx.tapes[1], 'waiting.bin', waiting, 1, randomBytes(5 * MiB))).status,
    ).toBe(200);
    await abort(fx.tapes[1], 'waiting.bin', waiting);
  });

  it('one tape past its share of the spool is 503 SlowDown while another tape still writes', async () => {
    const greedy = await create(fx.site, 'greedy.bin');
    expect((await putPart(fx.site, 'greedy.bin', greedy, 1, randomBytes(5 * MiB))).status).toBe(
      200,
    );
    // 10 MiB would fit the gateway's 12 MiB, not the tape's 9 MiB share.
    const refused = await putPart(fx.site, 'greedy.bin', greedy, 2, randomBytes(5 * MiB));
    expect(codeOf(refused)).toEqual([503, 'SlowDown']);
    expect(refused.body).toContain('spool_share_per_tape');
    expect(refused.headers['retry-after']).toBeDefined();
    const polite = await create(fx.tapes[1], 'polite.bin');
    expect((await putPart(fx.tapes[1], 'polite.bin', polite, 1, randomBytes(3 * MiB))).status).toBe(
      200,
    );
    // Aborting gives the tape its share back.
    await abort(fx.site, 'greedy.bin', greedy);
    const again = await create(fx.site, 'greedy.bin');
    expect((await putPart(fx.site, 'greedy.bin', again, 1, randomBytes(TAPE_SHARE))).status).toBe(
      200,
    );
    await abort(fx.site, 'greedy.bin', again);
    await abort(fx.tapes[1], 'polite.bin', polite);
  });
});
