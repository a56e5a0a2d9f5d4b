import {
  ChecksumAlgorithm,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { CHECKSUM_ALGORITHMS, newChecksum } from '../src/s3/body/checksums';
import { failure } from './support/clients/s3-sdk-client';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';
import { gatewayGet } from './support/labs/s3-tape-lab';

/**
 * Issue 19, findings 4 and 5: what S3 keeps with an object besides its bytes and type — the
 * five standard headers, x-amz-meta-* and the flexible checksum — is kept in the name's
 * metadata tail on chain and comes back on HeadObject/GetObject, through copies and multipart.
 * The SDK itself is the checksum oracle: with ChecksumMode ENABLED it validates what it reads.
 */
jest.setTimeout(180_000);

const MiB = 1024 * 1024;

const fx = useS3TapeFixture({ config: { localnet: { slot_ms: 100 } } });

const KEPT = {
  CacheControl: 'public, max-age=3600',
  ContentDisposition: 'attachment; filename="report.pdf"',
  ContentEncoding: 'gzip',
  ContentLanguage: 'de-CH',
  Metadata: { author: 'ada', 'project-id': '42' },
};
const EXPIRES = new Date('2031-01-02T03:04:05Z');

const base64Of = (algorithm: (typeof CHECKSUM_ALGORITHMS)[number], data: Buffer) => {
  const sum = newChecksum(algorithm);
  sum.update(data);
  return sum.digestBase64();
};

async function getBytes(key: string, checksum = false) {
  const res = await fx.s3.send(
    new GetObjectCommand({
      Bucket: fx.site.label,
      Key: key,
      ...(checksum ? { ChecksumMode: 'ENABLED' as const } : {}),
    }),
  );
  return { res, body: Buffer.from(await res.Body!.transformToByteArray()) };
}

describe('object headers and x-amz-meta-*', () => {
  it('PutObject keeps Cache-Control, Content-Disposition, -Encoding, -Language, Expires and x-amz-meta-*; HEAD and GET return them', async () => {
    await fx.s3.send(
      new PutObjectCommand({
        Bucket: fx.site.label,
        Key: 'docs/report.pdf',
        Body: Buffer.from('%PDF-1.4 pretend'),
        Expires: EXPIRES,
        ...KEPT,
      }),
    );
    const head = await fx.s3.send(
      new HeadObjectCommand({ Bucket: fx.site.label, Key: 'docs/report.pdf' }),
    );
    expect(head).toMatchObject({ ...KEPT, ExpiresString: EXPIRES.toUTCString() });
    const { res } = await getBytes('docs/report.pdf');
    expect(res).toMatchObject({ ...KEPT, ExpiresString: EXPIRES.toUTCString() });
  });

  it('the site route keeps the spec headers: tenant metadata does not change them', async () => {
    const served = await gatewayGet(fx.lab.gw, `/site/${fx.site.tape}/docs/report.pdf`);
    expect(served.status).toBe(200);
    expect(served.headers['cache-control']).toBe('public, max-age=60, must-revalidate');
    expect(served.headers['content-disposition']).toBeUndefined();
    expect(served.headers['content-encoding']).toBeUndefined();
    expect(served.headers['x-amz-meta-author']).toBeUndefined();
  });

  it('CopyObject copies the metadata by default and replaces all of it with REPLACE', async () => {
    await fx.s3.send(
      new CopyObjectCommand({
        Bucket: fx.site.label,
        Key: 'docs/copy.pdf',
        CopySource: `${fx.site.label}/docs/report.pdf`,
      }),
    );
    const copied = await fx.s3.send(
      new HeadObjectCommand({ Bucket: fx.site.label, Key: 'docs/copy.pdf' }),
    );
    expect(copied).toMatchObject(KEPT);

    await fx.s3.send(
      new CopyObjectCommand({
        Bucket: fx.site.label,
        Key: 'docs/replaced.pdf',
        CopySource: `${fx.site.label}/docs/report.pdf`,
        MetadataDirective: 'REPLACE',
        CacheControl: 'no-store',
        Metadata: { reviewer: 'grace' },
      }),
    );
    const replaced = await fx.s3.send(
      new HeadObjectCommand({ Bucket: fx.site.label, Key: 'docs/replaced.pdf' }),
    );
    expect(replaced.CacheControl).toBe('no-store');
    expect(replaced.Metadata).toEqual({ reviewer: 'grace' });
    expect(replaced.ContentDisposition).toBeUndefined();
    expect(replaced.ContentLanguage).toBeUndefined();
  });

  it('a PutObject without metadata replaces an object that had some: none is left', async () => {
    await fx.s3.send(
      new PutObjectCommand({
        Bucket: fx.site.label,
        Key: 'docs/copy.pdf',
        Body: Buffer.from('v2'),
      }),
    );
    const head = await fx.s3.send(
      new HeadObjectCommand({ Bucket: fx.site.label, Key: 'docs/copy.pdf' }),
    );
    expect(head.Metadata).toEqual({});
    expect(head.CacheControl).toBeUndefined();
  });

  it('metadata larger than a name can keep is 400 MetadataTooLarge before the body is stored', async () => {
    const failed = await failure(
      fx.s3.send(
        new PutObjectCommand({
          Bucket: fx.site.label,
          Key: 'too-much.txt',
          Body: Buffer.from('x'),
          Metadata: { big: 'v'.repeat(1_500) },
        }),
      ),
    );
    expect(failed).toMatchObject({ name: 'MetadataTooLarge', status: 400 });
    await expect(
      fx.s3.send(new HeadObjectCommand({ Bucket: fx.site.label, Key: 'too-much.txt' })),
    ).rejects.toMatchObject({ name: 'NotFound' });
  });
});

describe('checksums', () => {
  it.each(['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'] as const)(
    'a PutObject with %s keeps it: HEAD and GET with ChecksumMode ENABLED return it (the SDK validates GET)',
    async (name) => {
      const algorithm = name.toLowerCase() as (typeof CHECKSUM_ALGORITHMS)[number];
      const data = randomBytes(70_000);
      const key = `sums/${algorithm}.bin`;
      const put = await fx.s3.send(
        new PutObjectCommand({
          Bucket: fx.site.label,
          Key: key,
          Body: data,
          ChecksumAlgorithm: ChecksumAlgorithm[name],
        }),
      );
      const field = `Checksum${name}` as const;
      const expected = base64Of(algorithm, data);
      expect(put[field]).toBe(expected);

      const head = await fx.s3.send(
        new HeadObjectCommand({ Bucket: fx.site.label, Key: key, ChecksumMode: 'ENABLED' }),
      );
      expect(head[field]).toBe(expected);
      expect(head.ChecksumType).toBe('FULL_OBJECT');
      const { res, body } = await getBytes(key, true);
      expect(res[field]).toBe(expected);
      expect(body.equals(data)).toBe(true);

      // Without ChecksumMode, S3 sends no checksum.
      const plain = await fx.s3.send(new HeadObjectCommand({ Bucket: fx.site.label, Key: key }));
      expect(plain[field]).toBeUndefined();
    },
  );

  it('a ranged GET carries no whole-object checksum (the SDK would reject the range)', async () => {
    const res = await fx.s3.send(
      new GetObjectCommand({
        Bucket: fx.site.label,
        Key: 'sums/crc32.bin',
        Range: 'bytes=0-99',
        ChecksumMode: 'ENABLED',
      }),
    );
    expect((await res.Body!.transformToByteArray()).length).toBe(100);
    expect(res.ChecksumCRC32).toBeUndefined();
  });

  it('CopyObject keeps the checksum (COPY and REPLACE: the bytes are the same)', async () => {
    await fx.s3.send(
      new CopyObjectCommand({
        Bucket: fx.site.label,
        Key: 'sums/sha256-copy.bin',
        CopySource: `${fx.site.label}/sums/sha256.bin`,
        MetadataDirective: 'REPLACE',
        Metadata: { copied: 'yes' },
      }),
    );
    const head = await fx.s3.send(
      new HeadObjectCommand({
        Bucket: fx.site.label,
        Key: 'sums/sha256-copy.bin',
        ChecksumMode: 'ENABLED',
      }),
    );
    const original = await fx.s3.send(
      new HeadObjectCommand({
        Bucket: fx.site.label,
        Key: 'sums/sha256.bin',
        ChecksumMode: 'ENABLED',
      }),
    );
    expect(head.ChecksumSHA256).toBe(original.ChecksumSHA256);
    expect(head.Metadata).toEqual({ copied: 'yes' });
  });
});

describe('multipart', () => {
  const parts = [randomBytes(5 * MiB), randomBytes(MiB + 17)];
  const whole = Buffer.concat(parts);

  async function uploadParts(key: string, algorithm: ChecksumAlgorithm, uploadId: string) {
    const sent = [];
    for (const [i, body] of parts.entries()) {
      const res = await fx.s3.send(
        new UploadPartCommand({
          Bucket: fx.site.label,
          Key: key,
          UploadId: uploadId,
          PartNumber: i + 1,
          Body: body,
          ChecksumAlgorithm: algorithm,
        }),
      );
      sent.push({ PartNumber: i + 1, ETag: res.ETag!, res });
    }
    return sent;
  }

  it('CreateMultipartUpload echoes SHA256; parts return theirs; the object keeps the COMPOSITE checksum and the metadata', async () => {
    const key = 'media/composite.bin';
    const created = await fx.s3.send(
      new CreateMultipartUploadCommand({
        Bucket: fx.site.label,
        Key: key,
        ChecksumAlgorithm: 'SHA256',
        Expires: EXPIRES,
        ...KEPT,
      }),
    );
    expect(created.ChecksumAlgorithm).toBe('SHA256');
    expect(created.ChecksumType).toBe('COMPOSITE');
    const sent = await uploadParts(key, 'SHA256', created.UploadId!);
    const partSums = parts.map((p) => createHash('sha256').update(p).digest());
    sent.forEach(({ res }, i) => expect(res.ChecksumSHA256).toBe(partSums[i].toString('base64')));
    const listed = await fx.s3.send(
      new ListPartsCommand({ Bucket: fx.site.label, Key: key, UploadId: created.UploadId }),
    );
    expect(listed.Parts!.map((p) => p.ChecksumSHA256)).toEqual(
      partSums.map((d) => d.toString('base64')),
    );

    const composite = `${createHash('sha256').update(Buffer.concat(partSums)).digest('base64')}-2`;
    const done = await fx.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: fx.site.label,
        Key: key,
        UploadId: created.UploadId,
        MultipartUpload: {
          Parts: sent.map(({ PartNumber, ETag, res }) => ({
            PartNumber,
            ETag,
            ChecksumSHA256: res.ChecksumSHA256,
          })),
        },
      }),
    );
    expect(done.ChecksumSHA256).toBe(composite);
    expect(done.ChecksumType).toBe('COMPOSITE');

    const head = await fx.s3.send(
      new HeadObjectCommand({ Bucket: fx.site.label, Key: key, ChecksumMode: 'ENABLED' }),
    );
    expect(head).toMatchObject({
      ...KEPT,
      ExpiresString: EXPIRES.toUTCString(),
      ChecksumSHA256: composite,
      ChecksumType: 'COMPOSITE',
    });
    const { body } = await getBytes(key, true);
    expect(body.equals(whole)).toBe(true);
  });

  it('a CRC32 FULL_OBJECT upload keeps the CRC32 of the whole object (the SDK validates the GET)', async () => {
    const key = 'media/full.bin';
    const created = await fx.s3.send(
      new CreateMultipartUploadCommand({
        Bucket: fx.site.label,
        Key: key,
        ChecksumAlgorithm: 'CRC32',
        ChecksumType: 'FULL_OBJECT',
      }),
    );
    expect(created.ChecksumType).toBe('FULL_OBJECT');
    const sent = await uploadParts(key, 'CRC32', created.UploadId!);
    const done = await fx.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: fx.site.label,
        Key: key,
        UploadId: created.UploadId,
        MultipartUpload: { Parts: sent.map(({ PartNumber, ETag }) => ({ PartNumber, ETag })) },
      }),
    );
    const expected = Buffer.alloc(4);
    expected.writeUInt32BE(crc32(whole));
    expect(done.ChecksumCRC32).toBe(expected.toString('base64'));
    const { res, body } = await getBytes(key, true);
    expect(res.ChecksumCRC32).toBe(expected.toString('base64'));
    expect(res.ChecksumType).toBe('FULL_OBJECT');
    expect(body.equals(whole)).toBe(true);
  });

  it('CompleteMultipartUpload refuses a part checksum other than the one the part arrived with', async () => {
    const key = 'media/wrong-sum.bin';
    const created = await fx.s3.send(
      new CreateMultipartUploadCommand({
        Bucket: fx.site.label,
        Key: key,
        ChecksumAlgorithm: 'SHA1',
      }),
    );
    const sent = await uploadParts(key, 'SHA1', created.UploadId!);
    const failed = await failure(
      fx.s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: fx.site.label,
          Key: key,
          UploadId: created.UploadId,
          MultipartUpload: {
            Parts: sent.map(({ PartNumber, ETag }) => ({
              PartNumber,
              ETag,
              ChecksumSHA1: createHash('sha1').update('not the part').digest('base64'),
            })),
          },
        }),
      ),
    );
    expect(failed).toMatchObject({ name: 'InvalidPart', status: 400 });
  });

  it('CreateMultipartUpload refuses a checksum type the algorithm does not offer', async () => {
    const failed = await failure(
      fx.s3.send(
        new CreateMultipartUploadCommand({
          Bucket: fx.site.label,
          Key: 'media/nope.bin',
          ChecksumAlgorithm: 'SHA256',
          ChecksumType: 'FULL_OBJECT',
        }),
      ),
    );
    expect(failed).toMatchObject({ name: 'InvalidRequest', status: 400 });
  });
});
