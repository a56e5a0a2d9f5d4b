import {
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { failure } from './support/clients/s3-sdk-client';
import { APP_OWNER, useS3TestApp } from './support/apps/s3-app-fixture';

/**
 * Hidden keys (a segment starting with "."): a tape written by a program from before the rule
 * may hold `.env` or `.well-known/acme-challenge/x`. Over the real S3 listener and the SDK, with
 * those names already in the backend (as the chain would hold them): they are never listed,
 * never read, never written; they may be deleted.
 */
jest.setTimeout(60_000);

const BUCKET = APP_OWNER.bucket;
const HIDDEN = ['.env', '.well-known/acme-challenge/x', 'a/.git/config'];
const VISIBLE = ['a/b.txt', 'a.b/c.txt', 'index.html'];
const SECRET = 'AWS_SECRET_ACCESS_KEY=hunter2';

const fx = useS3TestApp();
const s3 = () => fx.client();

beforeAll(async () => {
  const tape = fx.app.backend.tape(BUCKET);
  for (const key of [...HIDDEN, ...VISIBLE]) {
    const body = Buffer.from(HIDDEN.includes(key) ? SECRET : key);
    await fx.app.backend.putObject(tape.bucket, {
      key,
      contentType: 'text/plain',
      metadata: {},
      size: body.length,
      body: Readable.from([body]),
    });
  }
  await fx.app.backend.createMultipartUpload(tape.bucket, {
    key: '.env',
    contentType: undefined,
    metadata: {},
  });
  await fx.app.backend.createMultipartUpload(tape.bucket, {
    key: 'big.bin',
    contentType: undefined,
    metadata: {},
  });
});

describe('S3: hidden keys are never published', () => {
  it('ListObjectsV2 and ListObjects leave them out, also as common prefixes', async () => {
    const v2 = await s3().send(new ListObjectsV2Command({ Bucket: BUCKET }));
    expect((v2.Contents ?? []).map((o) => o.Key).sort()).toEqual([...VISIBLE].sort());
    const rolled = await s3().send(new ListObjectsV2Command({ Bucket: BUCKET, Delimiter: '/' }));
    expect((rolled.CommonPrefixes ?? []).map((p) => p.Prefix).sort()).toEqual(['a.b/', 'a/']);
    expect((rolled.Contents ?? []).map((o) => o.Key)).toEqual(['index.html']);
    const prefixed = await s3().send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: '.w' }));
    expect(prefixed.KeyCount).toBe(0);
    const v1 = await s3().send(new ListObjectsCommand({ Bucket: BUCKET, Prefix: 'a/' }));
    expect((v1.Contents ?? []).map((o) => o.Key)).toEqual(['a/b.txt']);
  });

  it('ListMultipartUploads leaves out an upload of a hidden key', async () => {
    const uploads = await s3().send(new ListMultipartUploadsCommand({ Bucket: BUCKET }));
    expect((uploads.Uploads ?? []).map((u) => u.Key)).toEqual(['big.bin']);
  });

  it('GetObject and HeadObject answer 404 NoSuchKey, with no byte of the object', async () => {
    for (const key of HIDDEN) {
      const get = await failure(s3().send(new GetObjectCommand({ Bucket: BUCKET, Key: key })));
      expect([key, get.name, get.status]).toEqual([key, 'NoSuchKey', 404]);
      expect(get.message).not.toContain(SECRET);
      const head = await failure(s3().send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })));
      expect([key, head.status]).toEqual([key, 404]);
    }
    // The control: a visible key is served.
    const visible = await s3().send(new GetObjectCommand({ Bucket: BUCKET, Key: 'a/b.txt' }));
    expect(await visible.Body!.transformToString()).toBe('a/b.txt');
  });

  it('CopyObject cannot read a hidden source into a visible key', async () => {
    const copy = await failure(
      s3().send(
        new CopyObjectCommand({ Bucket: BUCKET, Key: 'leak.txt', CopySource: `${BUCKET}/.env` }),
      ),
    );
    expect([copy.name, copy.status]).toEqual(['NoSuchKey', 404]);
    expect(fx.app.backend.tape(BUCKET).objects.has('leak.txt')).toBe(false);
  });

  it('PutObject, CopyObject and CreateMultipartUpload refuse a hidden key with 400 InvalidArgument', async () => {
    const calls = fx.app.backend.calls.length;
    for (const key of ['.htaccess', '.well-known/acme-challenge/token', 'docs/.git/HEAD']) {
      const put = await failure(
        s3().send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'token' })),
      );
      expect([key, put.name, put.status]).toEqual([key, 'InvalidArgument', 400]);
      expect(put.message).toContain('never published');
      const copy = await failure(
        s3().send(
          new CopyObjectCommand({ Bucket: BUCKET, Key: key, CopySource: `${BUCKET}/index.html` }),
        ),
      );
      expect([key, copy.name, copy.status]).toEqual([key, 'InvalidArgument', 400]);
      const create = await failure(
        s3().send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key })),
      );
      expect([key, create.name, create.status]).toEqual([key, 'InvalidArgument', 400]);
    }
    expect(fx.app.backend.calls.slice(calls)).toEqual([]);
  });

  it('DeleteObject removes a hidden name (an owner can clean up)', async () => {
    await s3().send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'a/.git/config' }));
    expect(fx.app.backend.tape(BUCKET).objects.has('a/.git/config')).toBe(false);
  });
});
