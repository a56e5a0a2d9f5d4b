import {
  CompleteMultipartUploadCommand,
  CompletedPart,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectAttributesCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { createUpload, failure, uploadPart } from './support/clients/s3-sdk-client';
import { send, signedRequest } from './support/clients/s3-raw-http';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';
import { currentVersion } from './support/clients/s3-version-view';

/**
 * What S3 clients read back about an object beyond its bytes, on a real gateway: S3's ETags
 * (an MD5, the multipart form), the parts of a completed upload (GetObjectAttributes, GET by
 * partNumber), a part listed twice, copies from another tape, a PutObject without a length,
 * and keys with control characters (issue 19, s3-tests).
 */
jest.setTimeout(180_000);

const KiB = 1024;
const md5 = (b: Buffer) => createHash('md5').update(b).digest();
const sha256b64 = (b: Buffer) => createHash('sha256').update(b).digest('base64');

const fx = useS3TapeFixture({
  config: { localnet: { slot_ms: 100 }, gateway: { s3: { min_part_bytes: 64 * KiB } } },
  tapes: 2,
});

const bytesOf = async (res: { Body?: { transformToByteArray(): Promise<Uint8Array> } }) =>
  Buffer.from(await res.Body!.transformToByteArray());
const s3Port = () => Number(new URL(fx.lab.gw.s3Url).port);

describe('a completed multipart upload keeps its parts', () => {
  const parts = [randomBytes(64 * KiB), randomBytes(64 * KiB), randomBytes(10 * KiB)];
  const whole = Buffer.concat(parts);
  let etag: string;
  let checksum: string;
  let complete: () => Promise<{ ETag?: string; ChecksumSHA256?: string }>;

  beforeAll(async () => {
    const { UploadId } = await fx.s3.send(
      new CreateMultipartUploadCommand({
        Bucket: fx.site.label,
        Key: 'mp/parts.bin',
        ChecksumAlgorithm: 'SHA256',
      }),
    );
    const listed: CompletedPart[] = [];
    for (const [i, Body] of parts.entries()) {
      const res = await fx.s3.send(
        new UploadPartCommand({
          Bucket: fx.site.label,
          Key: 'mp/parts.bin',
          UploadId,
          PartNumber: i + 1,
          Body,
          ChecksumAlgorithm: 'SHA256',
        }),
      );
      listed.push({ PartNumber: i + 1, ETag: res.ETag, ChecksumSHA256: res.ChecksumSHA256 });
    }
    complete = () =>
      fx.s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: fx.site.label,
          Key: 'mp/parts.bin',
          UploadId,
          MultipartUpload: { Parts: listed },
        }),
      );
    const done = await complete();
    etag = done.ETag!;
    checksum = done.ChecksumSHA256!;
  });

  it("has S3's multipart ETag: the MD5 of the parts' MD5s, then -<parts>", () => {
    const expected = createHash('md5')
      .update(Buffer.concat(parts.map(md5)))
      .digest('hex');
    expect(etag).toBe(`"${expected}-3"`);
  });

  it('a retried CompleteMultipartUpload answers the same ETag and checksum', async () => {
    const again = await complete();
    expect([again.ETag, again.ChecksumSHA256]).toEqual([etag, checksum]);
  });

  it('GetObjectAttributes lists the parts with their sizes and checksums, paginated', async () => {
    const attrs = await fx.s3.send(
      new GetObjectAttributesCommand({
        Bucket: fx.site.label,
        Key: 'mp/parts.bin',
        ObjectAttributes: ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'],
      }),
    );
    expect(attrs.ETag).toBe(etag.replace(/"/g, ''));
    expect(attrs.ObjectSize).toBe(whole.length);
    expect(attrs.StorageClass).toBe('STANDARD');
    expect(attrs.Checksum?.ChecksumSHA256).toBe(checksum);
    expect(attrs.ObjectParts?.TotalPartsCount).toBe(3);
    expect(attrs.ObjectParts?.Parts?.map((p) => [p.PartNumber, p.Size, p.ChecksumSHA256])).toEqual(
      parts.map((p, i) => [i + 1, p.length, sha256b64(p)]),
    );
    const page = await fx.s3.send(
      new GetObjectAttributesCommand({
        Bucket: fx.site.label,
        Key: 'mp/parts.bin',
        ObjectAttributes: ['ObjectParts'],
        MaxParts: 1,
        PartNumberMarker: '1',
      }),
    );
    expect(page.ObjectParts?.Parts?.map((p) => p.PartNumber)).toEqual([2]);
    expect(page.ObjectParts?.IsTruncated).toBe(true);
    expect(page.ObjectParts?.NextPartNumberMarker).toBe('2');
  });

  it('GET and HEAD by partNumber answer that part and the parts count', async () => {
    const second = await fx.s3.send(
      new GetObjectCommand({ Bucket: fx.site.label, Key: 'mp/parts.bin', PartNumber: 2 }),
    );
    expect(second.PartsCount).toBe(3);
    expect(second.ETag).toBe(etag);
    expect((await bytesOf(second)).equals(parts[1])).toBe(true);
    const last = await fx.s3.send(
      new HeadObjectCommand({ Bucket: fx.site.label, Key: 'mp/parts.bin', PartNumber: 3 }),
    );
    expect([last.PartsCount, last.ContentLength]).toEqual([3, parts[2].length]);
    const none = await failure(
      fx.s3.send(
        new GetObjectCommand({ Bucket: fx.site.label, Key: 'mp/parts.bin', PartNumber: 4 }),
      ),
    );
    expect([none.status, none.name]).toEqual([400, 'InvalidPart']);
  });

  it('a single-part object has its MD5 as ETag and no ObjectParts', async () => {
    const put = await fx.s3.send(
      new PutObjectCommand({ Bucket: fx.site.label, Key: 'one.txt', Body: 'bar' }),
    );
    expect(put.ETag).toBe('"37b51d194a7513e45b56f6524f2d51f2"');
    const attrs = await fx.s3.send(
      new GetObjectAttributesCommand({
        Bucket: fx.site.label,
        Key: 'one.txt',
        ObjectAttributes: ['ETag', 'ObjectParts', 'ObjectSize'],
      }),
    );
    expect([attrs.ETag, attrs.ObjectSize, attrs.ObjectParts]).toEqual([
      '37b51d194a7513e45b56f6524f2d51f2',
      3,
      undefined,
    ]);
  });
});

it('a part uploaded twice and listed twice completes with the part as stored', async () => {
  const key = 'mp/resent.bin';
  const UploadId = await createUpload(fx.s3, fx.site.label, key);
  const first = await uploadPart(fx.s3, fx.site.label, key, UploadId, 1, 'AAAAAAAA');
  const second = await uploadPart(fx.s3, fx.site.label, key, UploadId, 1, 'BBBBBBBB');
  await fx.s3.send(
    new CompleteMultipartUploadCommand({
      Bucket: fx.site.label,
      Key: key,
      UploadId,
      MultipartUpload: {
        Parts: [
          { PartNumber: 1, ETag: second },
          { PartNumber: 1, ETag: first },
        ],
      },
    }),
  );
  const got = await fx.s3.send(new GetObjectCommand({ Bucket: fx.site.label, Key: key }));
  expect((await bytesOf(got)).toString()).toBe('BBBBBBBB');
});

it("copies from another tape's bucket into the credential's own (CopyObject, UploadPartCopy)", async () => {
  const data = randomBytes(70 * KiB);
  await fx.s3.send(
    new PutObjectCommand({
      Bucket: fx.site.label,
      Key: 'src.bin',
      Body: data,
      Metadata: { origin: 'a' },
      CacheControl: 'no-cache',
    }),
  );
  const copied = await fx.clients[1].send(
    new CopyObjectCommand({
      Bucket: fx.tapes[1].label,
      Key: 'copy.bin',
      CopySource: `${fx.site.label}/src.bin`,
    }),
  );
  expect(copied.CopyObjectResult?.ETag).toBe(`"${md5(data).toString('hex')}"`);
  const got = await fx.clients[1].send(
    new GetObjectCommand({ Bucket: fx.tapes[1].label, Key: 'copy.bin' }),
  );
  expect((await bytesOf(got)).equals(data)).toBe(true);
  expect([got.Metadata, got.CacheControl]).toEqual([{ origin: 'a' }, 'no-cache']);
  expect((await currentVersion(fx.lab.gw, fx.tapes[1].tape)).entries).toEqual([
    expect.objectContaining({ name: 'copy.bin' }),
  ]);

  const { UploadId } = await fx.clients[1].send(
    new CreateMultipartUploadCommand({ Bucket: fx.tapes[1].label, Key: 'parts.bin' }),
  );
  const part = await fx.clients[1].send(
    new UploadPartCopyCommand({
      Bucket: fx.tapes[1].label,
      Key: 'parts.bin',
      UploadId,
      PartNumber: 1,
      CopySource: `${fx.site.label}/src.bin`,
      CopySourceRange: 'bytes=10-19',
    }),
  );
  await fx.clients[1].send(
    new CompleteMultipartUploadCommand({
      Bucket: fx.tapes[1].label,
      Key: 'parts.bin',
      UploadId,
      MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.CopyPartResult?.ETag }] },
    }),
  );
  const slice = await fx.clients[1].send(
    new GetObjectCommand({ Bucket: fx.tapes[1].label, Key: 'parts.bin' }),
  );
  expect((await bytesOf(slice)).equals(data.subarray(10, 20))).toBe(true);
  // Writes stay scoped: tape B's credential still cannot write into tape A's bucket.
  const refused = await failure(
    fx.clients[1].send(
      new CopyObjectCommand({
        Bucket: fx.site.label,
        Key: 'x',
        CopySource: `${fx.tapes[1].label}/copy.bin`,
      }),
    ),
  );
  expect(refused.status).toBe(403);
});

it('takes a PutObject in chunked Transfer-Encoding without Content-Length', async () => {
  const res = await signedRequest(s3Port(), {
    method: 'PUT',
    path: `/${fx.site.label}/chunked.txt`,
    headers: { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'transfer-encoding': 'chunked' },
    body: Buffer.from('bar'),
    accessKeyId: fx.site.accessKeyId,
    secret: fx.site.secret,
  });
  expect(res.status).toBe(200);
  expect(res.headers.etag).toBe('"37b51d194a7513e45b56f6524f2d51f2"');
  const got = await fx.s3.send(new GetObjectCommand({ Bucket: fx.site.label, Key: 'chunked.txt' }));
  expect((await bytesOf(got)).toString()).toBe('bar');
});

it('answers a key with a control character 400 InvalidURI, as S3 does', async () => {
  const res = await signedRequest(s3Port(), {
    method: 'GET',
    path: `/${fx.site.label}/%C2%AE%C2%8A-`,
    headers: { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
    accessKeyId: fx.site.accessKeyId,
    secret: fx.site.secret,
  });
  expect(res.status).toBe(400);
  expect(res.body).toContain('<Code>InvalidURI</Code>');
  expect(res.body).toContain('<Message>Couldn&apos;t parse the specified URI.</Message>');
});

it('answers OPTIONS (a CORS preflight) 400 without Origin and 403 with one, before authentication', async () => {
  const bare = await send(s3Port(), 'OPTIONS', `/${fx.site.label}/one.txt?X-Amz-Expires=60`, {});
  expect(bare.status).toBe(400);
  expect(bare.body).toContain('<Code>BadRequest</Code>');
  const cors = await send(s3Port(), 'OPTIONS', `/${fx.site.label}/one.txt`, {
    origin: 'https://a.example',
    'access-control-request-method': 'GET',
  });
  expect(cors.status).toBe(403);
});
