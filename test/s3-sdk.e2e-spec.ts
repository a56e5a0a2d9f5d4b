import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  AbortMultipartUploadCommand,
} from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { captureHeaders, failure } from './support/clients/s3-sdk-client';
import { APP_OWNER, useS3TestApp } from './support/apps/s3-app-fixture';

/**
 * @aws-sdk/client-s3 against the S3 listener: streamed bodies (aws-chunked with a CRC32 trailer),
 * multipart rules, listing order, copy and delete. Refusals: s3-refusals.e2e-spec.ts.
 */
const BUCKET = APP_OWNER.bucket;

jest.setTimeout(120000);

const fx = useS3TestApp();
const client = fx.client;

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('streamed PutObject (STREAMING-UNSIGNED-PAYLOAD-TRAILER)', () => {
  it('decodes the aws-chunked body, checks its CRC32 trailer and echoes the checksum', async () => {
    const s3 = client();
    const sent = captureHeaders(s3);
    const data = randomBytes(300 * 1024 + 17);
    const out = await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'stream/ünï +.bin',
        Body: Readable.from([data.subarray(0, 100000), data.subarray(100000)]),
        ContentLength: data.length,
        ContentType: 'application/x-test',
      }),
    );
    expect(sent[0]['x-amz-content-sha256']).toBe('STREAMING-UNSIGNED-PAYLOAD-TRAILER');
    expect(sent[0]['x-amz-trailer']).toBe('x-amz-checksum-crc32');
    expect(out.ETag).toBe(`"${sha256(data)}"`);
    expect(out.ChecksumCRC32).toBeDefined();
    const stored = fx.app.backend.tape(BUCKET).objects.get('stream/ünï +.bin');
    expect(stored?.data.equals(data)).toBe(true);
    expect(stored?.head.contentType).toBe('application/x-test');

    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'stream/ünï +.bin' }));
    expect(head.ContentLength).toBe(data.length);
    expect(head.ContentType).toBe('application/x-test');
    expect(head.ETag).toBe(out.ETag);

    const ranged = await s3.send(
      new GetObjectCommand({ Bucket: BUCKET, Key: 'stream/ünï +.bin', Range: 'bytes=10-19' }),
    );
    expect(ranged.ContentRange).toBe(`bytes 10-19/${data.length}`);
    expect(
      Buffer.from(await ranged.Body!.transformToByteArray()).equals(data.subarray(10, 20)),
    ).toBe(true);
  });
});

describe('listing, copy and batch delete', () => {
  it('lists in UTF-8 byte order across pages of the SDK paginator', async () => {
    const s3 = client();
    const keys = ['list/😀', 'list/ｚ', 'list/é', 'list/z', 'list/a&b<c>'];
    for (const key of keys)
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: key }));
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({
          Bucket: BUCKET,
          Prefix: 'list/',
          MaxKeys: 2,
          ContinuationToken: token,
        }),
      );
      seen.push(...(page.Contents ?? []).map((c) => c.Key!));
      token = page.NextContinuationToken;
    } while (token);
    expect(seen).toEqual(['list/a&b<c>', 'list/z', 'list/é', 'list/ｚ', 'list/😀']);
  });

  it('copies an object, refuses a self-copy without REPLACE, and deletes in batch', async () => {
    const s3 = client();
    const copied = await s3.send(
      new CopyObjectCommand({
        Bucket: BUCKET,
        Key: 'list/copy',
        CopySource: `${BUCKET}/${encodeURIComponent('list/é')}`,
      }),
    );
    expect(copied.CopyObjectResult?.ETag).toBe(`"${sha256(Buffer.from('list/é'))}"`);
    const self = await failure(
      s3.send(
        new CopyObjectCommand({ Bucket: BUCKET, Key: 'list/z', CopySource: `${BUCKET}/list/z` }),
      ),
    );
    expect(self.name).toBe('InvalidRequest');
    const deleted = await s3.send(
      new DeleteObjectsCommand({
        Bucket: BUCKET,
        Delete: {
          Objects: [{ Key: 'list/a&b<c>' }, { Key: 'list/copy' }, { Key: 'list/never-existed' }],
        },
      }),
    );
    expect((deleted.Deleted ?? []).map((d) => d.Key).sort()).toEqual([
      'list/a&b<c>',
      'list/copy',
      'list/never-existed',
    ]);
    expect(fx.app.backend.tape(BUCKET).objects.has('list/a&b<c>')).toBe(false);
  });

  it('answers a missing key as NoSuchKey (GET) and NotFound (HEAD, no body)', async () => {
    const s3 = client();
    expect(
      (await failure(s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'nope' })))).name,
    ).toBe('NoSuchKey');
    const head = await failure(s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'nope' })));
    expect(head.status).toBe(404);
  });
});

describe('multipart uploads', () => {
  const five = randomBytes(5 * 1024 * 1024);
  const tail = randomBytes(1000);

  async function startUpload(s3: S3Client, bucket = BUCKET, key = 'mp/file.bin') {
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }),
    );
    const p2 = await s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: 2, Body: tail }),
    );
    const p1 = await s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: 1, Body: five }),
    );
    return { UploadId: UploadId!, e1: p1.ETag!, e2: p2.ETag! };
  }

  it('enforces part order, ETags and the minimum part size, then completes', async () => {
    const s3 = client();
    const { UploadId, e1, e2 } = await startUpload(s3);
    const parts = await s3.send(
      new ListPartsCommand({ Bucket: BUCKET, Key: 'mp/file.bin', UploadId }),
    );
    expect(parts.Parts?.map((p) => p.PartNumber)).toEqual([1, 2]);
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: BUCKET }));
    expect(uploads.Uploads?.map((u) => u.UploadId)).toContain(UploadId);

    const complete = (Parts: { PartNumber: number; ETag: string }[]) =>
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: BUCKET,
          Key: 'mp/file.bin',
          UploadId,
          MultipartUpload: { Parts },
        }),
      );
    expect(
      (
        await failure(
          complete([
            { PartNumber: 2, ETag: e2 },
            { PartNumber: 1, ETag: e1 },
          ]),
        )
      ).name,
    ).toBe('InvalidPartOrder');
    expect(
      (
        await failure(
          complete([
            { PartNumber: 1, ETag: '"0000"' },
            { PartNumber: 2, ETag: e2 },
          ]),
        )
      ).name,
    ).toBe('InvalidPart');
    expect(
      (
        await failure(
          complete([
            { PartNumber: 2, ETag: e2 },
            { PartNumber: 3, ETag: e2 },
          ]),
        )
      ).name,
    ).toBe('InvalidPart');

    const done = await complete([
      { PartNumber: 1, ETag: e1 },
      { PartNumber: 2, ETag: e2 },
    ]);
    expect(done.ETag).toBe(`"${sha256(Buffer.concat([five, tail]))}"`);
    expect(
      fx.app.backend
        .tape(BUCKET)
        .objects.get('mp/file.bin')
        ?.data.equals(Buffer.concat([five, tail])),
    ).toBe(true);
  });

  it('refuses parts below 5 MiB except the last, and forgets aborted uploads', async () => {
    const s3 = client();
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'mp/small' }),
    );
    const a = await s3.send(
      new UploadPartCommand({
        Bucket: BUCKET,
        Key: 'mp/small',
        UploadId,
        PartNumber: 1,
        Body: 'a',
      }),
    );
    const b = await s3.send(
      new UploadPartCommand({
        Bucket: BUCKET,
        Key: 'mp/small',
        UploadId,
        PartNumber: 2,
        Body: 'b',
      }),
    );
    const small = await failure(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: BUCKET,
          Key: 'mp/small',
          UploadId,
          MultipartUpload: {
            Parts: [
              { PartNumber: 1, ETag: a.ETag },
              { PartNumber: 2, ETag: b.ETag },
            ],
          },
        }),
      ),
    );
    expect(small.name).toBe('EntityTooSmall');
    await s3.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: 'mp/small', UploadId }));
    const gone = await failure(
      s3.send(new ListPartsCommand({ Bucket: BUCKET, Key: 'mp/small', UploadId })),
    );
    expect(gone.name).toBe('NoSuchUpload');
    const badNumber = await failure(
      s3.send(
        new UploadPartCommand({
          Bucket: BUCKET,
          Key: 'mp/small',
          UploadId,
          PartNumber: 10001,
          Body: 'x',
        }),
      ),
    );
    expect(badNumber.name).toBe('InvalidArgument');
  });

  it('keeps a slow CompleteMultipartUpload alive and reports a late failure inside the 200', async () => {
    const s3 = client();
    fx.app.backend.slowCommitMs = 2500;
    try {
      const { UploadId, e1, e2 } = await startUpload(s3, BUCKET, 'mp/slow.bin');
      const done = await s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: BUCKET,
          Key: 'mp/slow.bin',
          UploadId,
          MultipartUpload: {
            Parts: [
              { PartNumber: 1, ETag: e1 },
              { PartNumber: 2, ETag: e2 },
            ],
          },
        }),
      );
      expect(done.ETag).toBe(`"${sha256(Buffer.concat([five, tail]))}"`);

      // Room for each part, not for the assembled object: the commit fails after the 200 began.
      const late = 'latebucketlabel44444444444444444444444444444444444aa';
      fx.app.backend.addTape(late, 'TapeLate', { capacity: five.length + 500 });
      fx.app.credentials.issue('AKLATE', 'late-secret', 'TapeLate');
      const lateClient = client('AKLATE', 'late-secret');
      const parts = await startUpload(lateClient, late, 'mp/late.bin');
      const started = Date.now();
      const e = await failure(
        lateClient.send(
          new CompleteMultipartUploadCommand({
            Bucket: late,
            Key: 'mp/late.bin',
            UploadId: parts.UploadId,
            MultipartUpload: {
              Parts: [
                { PartNumber: 1, ETag: parts.e1 },
                { PartNumber: 2, ETag: parts.e2 },
              ],
            },
          }),
        ),
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(2400);
      // The answer was a 200 whose body turned into <Error>: the SDK reports it as a 503 error.
      expect([e.name, e.status]).toEqual(['InsufficientStorage', 503]);
      expect(e.message).toContain('insufficient capacity');
    } finally {
      fx.app.backend.slowCommitMs = 0;
    }
  });
});
