import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { signedRequest } from './support/clients/s3-raw-http';
import { createUpload, failure, uploadPart } from './support/clients/s3-sdk-client';
import { encodeKeyPath } from './support/clients/s3-signing';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';

/**
 * Issue 19: every S3 write is safe to retry at any moment. An identical write sent twice builds
 * an identical transaction (same instructions, same blockhash), which the chain refuses as
 * already processed: it must answer as the first did, never 500. A retried
 * CompleteMultipartUpload answers the same ETag; conditional writes refuse with 412.
 * The SDK client makes one attempt only, so a 5xx is seen rather than retried away.
 */
jest.setTimeout(300_000);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const fx = useS3TapeFixture({ config: { localnet: { slot_ms: 100 } } });

const statusOf = async (promise: Promise<unknown>): Promise<number> => {
  try {
    await promise;
    return 200;
  } catch (error) {
    return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0;
  }
};

const body = async (key: string) => {
  const res = await fx.s3.send(new GetObjectCommand({ Bucket: fx.site.label, Key: key }));
  return Buffer.from(await res.Body!.transformToByteArray()).toString();
};

describe('identical writes sent twice at once', () => {
  it('100 rounds of PutObject, CopyObject and DeleteObjects, each sent twice at once: no 5xx, no per-key error', async () => {
    const Bucket = fx.site.label;
    const statuses: number[] = [];
    const deleteErrors: unknown[] = [];
    const twice = async (send: () => Promise<unknown>) =>
      statuses.push(...(await Promise.all([statusOf(send()), statusOf(send())])));
    for (let round = 0; round < 100; round++) {
      // The same key and bytes each round: from the second round on, both copies of the
      // request find the key already holding them and build the same transaction.
      await twice(() =>
        fx.s3.send(new PutObjectCommand({ Bucket, Key: 'same/page.html', Body: '<p>same</p>' })),
      );
      await twice(() =>
        fx.s3.send(
          new CopyObjectCommand({
            Bucket,
            Key: 'same/copy.html',
            CopySource: `${Bucket}/same/page.html`,
          }),
        ),
      );
      await twice(async () => {
        const res = await fx.s3.send(
          new DeleteObjectsCommand({
            Bucket,
            Delete: { Objects: [{ Key: 'same/copy.html' }, { Key: 'same/never.html' }] },
          }),
        );
        deleteErrors.push(...(res.Errors ?? []));
      });
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(deleteErrors).toEqual([]);
    expect(await body('same/page.html')).toBe('<p>same</p>');
    expect(
      await statusOf(fx.s3.send(new HeadObjectCommand({ Bucket, Key: 'same/copy.html' }))),
    ).toBe(404);
  });
});

describe('CompleteMultipartUpload', () => {
  async function upload(key: string): Promise<{ uploadId: string; etag: string }> {
    const uploadId = await createUpload(fx.s3, fx.site.label, key);
    const etag = await uploadPart(fx.s3, fx.site.label, key, uploadId, 1, `bytes of ${key}`);
    return { uploadId, etag };
  }

  const complete = (key: string, uploadId: string, etag: string, ifNoneMatch?: string) =>
    fx.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: fx.site.label,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: etag }] },
        IfNoneMatch: ifNoneMatch,
      }),
    );

  it('retried after it succeeded answers 200 with the same ETag (S3), not 404 NoSuchUpload', async () => {
    const { uploadId, etag } = await upload('mp/retried.bin');
    const first = await complete('mp/retried.bin', uploadId, etag);
    const again = await complete('mp/retried.bin', uploadId, etag);
    expect(again.ETag).toBe(first.ETag);
    // Sent twice at once: both answer the one object.
    const next = await upload('mp/twice.bin');
    const both = await Promise.all([
      complete('mp/twice.bin', next.uploadId, next.etag),
      complete('mp/twice.bin', next.uploadId, next.etag),
    ]);
    expect(both[0].ETag).toBe(both[1].ETag);
    expect(await body('mp/twice.bin')).toBe('bytes of mp/twice.bin');
    // Another key never sees the completed upload.
    const other = await failure(complete('mp/other.bin', uploadId, etag));
    expect(other.name).toBe('NoSuchUpload');
  });

  it('If-None-Match: * refuses with 412 when the key exists', async () => {
    const { uploadId, etag } = await upload('mp/guarded.bin');
    await fx.s3.send(
      new PutObjectCommand({ Bucket: fx.site.label, Key: 'mp/guarded.bin', Body: 'x' }),
    );
    const refused = await failure(complete('mp/guarded.bin', uploadId, etag, '*'));
    expect(refused.status).toBe(412);
    expect(await body('mp/guarded.bin')).toBe('x');
  });
});

describe('conditional PutObject', () => {
  it('If-None-Match: * writes only a new key; of two racing writers exactly one wins', async () => {
    const Bucket = fx.site.label;
    const put = (Key: string, Body: string) =>
      fx.s3.send(new PutObjectCommand({ Bucket, Key, Body, IfNoneMatch: '*' }));
    await put('cond/new.txt', 'first');
    expect((await failure(put('cond/new.txt', 'second'))).status).toBe(412);
    expect(await body('cond/new.txt')).toBe('first');

    const racing = await Promise.all(
      ['a', 'b', 'c', 'd'].map((v) => statusOf(put('cond/race.txt', v))),
    );
    expect(racing.filter((s) => s === 200)).toHaveLength(1);
    expect(racing.filter((s) => s === 412)).toHaveLength(3);
  });

  it('If-Match writes only over the ETag named (412 otherwise, 404 on an absent key)', async () => {
    const Bucket = fx.site.label;
    const first = await fx.s3.send(new PutObjectCommand({ Bucket, Key: 'cond/m.txt', Body: 'v1' }));
    const put = (Body: string, IfMatch: string, Key = 'cond/m.txt') =>
      fx.s3.send(new PutObjectCommand({ Bucket, Key, Body, IfMatch }));
    const second = await put('v2', first.ETag!);
    expect((await failure(put('v3', first.ETag!))).status).toBe(412);
    expect(await body('cond/m.txt')).toBe('v2');
    await put('v4', second.ETag!);
    expect(await body('cond/m.txt')).toBe('v4');
    expect((await failure(put('v', '"abc"', 'cond/absent.txt'))).status).toBe(404);
  });

  it('CopyObject with If-None-Match: * does not replace an existing destination', async () => {
    const Bucket = fx.site.label;
    await fx.s3.send(new PutObjectCommand({ Bucket, Key: 'cond/src.txt', Body: 'src' }));
    await fx.s3.send(new PutObjectCommand({ Bucket, Key: 'cond/dst.txt', Body: 'dst' }));
    const refused = await failure(
      fx.s3.send(
        new CopyObjectCommand({
          Bucket,
          Key: 'cond/dst.txt',
          CopySource: `${Bucket}/cond/src.txt`,
          IfNoneMatch: '*',
        }),
      ),
    );
    expect(refused.status).toBe(412);
    expect(await body('cond/dst.txt')).toBe('dst');
  });
});

describe('smaller gaps (finding 6)', () => {
  const Bucket = () => fx.site.label;

  it('UploadPartCopy builds a part from an object or a byte range of it', async () => {
    await fx.s3.send(
      new PutObjectCommand({ Bucket: Bucket(), Key: 'gap/src.txt', Body: '0123456789' }),
    );
    const UploadId = await createUpload(fx.s3, Bucket(), 'gap/dst.txt');
    const part = (PartNumber: number, CopySourceRange?: string) =>
      fx.s3.send(
        new UploadPartCopyCommand({
          Bucket: Bucket(),
          Key: 'gap/dst.txt',
          UploadId,
          PartNumber,
          CopySource: `${Bucket()}/gap/src.txt`,
          CopySourceRange,
        }),
      );
    const whole = await part(1);
    const slice = await part(2, 'bytes=2-4');
    expect((await failure(part(3, 'bytes=5-10'))).name).toBe('InvalidRange');
    expect((await failure(part(3, 'bytes=x-1'))).name).toBe('InvalidArgument');
    // A part's ETag is the SHA-256 of its bytes: the whole source, then bytes 2..4 of it.
    expect(whole.CopyPartResult!.ETag).toBe(`"${sha256('0123456789')}"`);
    expect(slice.CopyPartResult!.ETag).toBe(`"${sha256('234')}"`);
    // Parts below the minimum size may only be last: complete with the slice alone.
    await fx.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: Bucket(),
        Key: 'gap/dst.txt',
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 2, ETag: slice.CopyPartResult!.ETag }] },
      }),
    );
    expect(await body('gap/dst.txt')).toBe('234');
  });

  it('GetObject partNumber=1 is the whole object; other parts are 400 InvalidPart', async () => {
    await fx.s3.send(new PutObjectCommand({ Bucket: Bucket(), Key: 'gap/p.txt', Body: 'body' }));
    const one = await fx.s3.send(
      new GetObjectCommand({ Bucket: Bucket(), Key: 'gap/p.txt', PartNumber: 1 }),
    );
    expect(Buffer.from(await one.Body!.transformToByteArray()).toString()).toBe('body');
    const two = await failure(
      fx.s3.send(new GetObjectCommand({ Bucket: Bucket(), Key: 'gap/p.txt', PartNumber: 2 })),
    );
    expect({ name: two.name, status: two.status }).toEqual({ name: 'InvalidPart', status: 400 });
  });

  it('ListObjectsV2 shows Owner only with fetch-owner', async () => {
    const plain = await fx.s3.send(new ListObjectsV2Command({ Bucket: Bucket(), Prefix: 'gap/' }));
    expect(plain.Contents![0].Owner).toBeUndefined();
    const owned = await fx.s3.send(
      new ListObjectsV2Command({ Bucket: Bucket(), Prefix: 'gap/', FetchOwner: true }),
    );
    expect(owned.Contents![0].Owner).toEqual({
      ID: fx.site.accessKeyId,
      DisplayName: fx.site.accessKeyId,
    });
  });

  it('a PUT with an Expect header other than 100-continue is taken (S3 ignores it; was 417)', async () => {
    const res = await signedRequest(Number(new URL(fx.lab.gw.s3Url).port), {
      method: 'PUT',
      path: encodeKeyPath(Bucket(), 'gap/expect.txt'),
      headers: {
        expect: 'nothing-we-know',
        'content-length': '2',
        'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
      },
      body: Buffer.from('ok'),
      accessKeyId: fx.site.accessKeyId,
      secret: fx.site.secret,
    });
    const status = res.status;
    expect(status).toBe(200);
    expect(await body('gap/expect.txt')).toBe('ok');
  });
});
