import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitFileIntoTracks } from '../src/tracks/track-layout';
import { createUpload, failure, uploadPart } from './support/clients/s3-sdk-client';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';
import { gatewayGet, tapeWithCredential } from './support/labs/s3-tape-lab';

/**
 * Multipart uploads on a real gateway: parts out of order, the object they complete into (the
 * same streamed object `tape deploy` would store), abort, capacity checks per part, and an
 * upload that survives a gateway restart (parts are kept under <data_dir>/s3-multipart/).
 */
jest.setTimeout(180_000);

const MiB = 1024 * 1024;

const fx = useS3TapeFixture({ config: { localnet: { slot_ms: 100 } }, ownDataDir: true });

const uploadDirs = () => readdirSync(join(fx.dataDir, 's3-multipart'));

async function getBytes(s3: S3Client, bucket: string, key: string): Promise<Buffer> {
  const res = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await res.Body!.transformToByteArray());
}

describe('multipart uploads', () => {
  it('parts uploaded out of order complete into the streamed object tape deploy would store', async () => {
    const s3 = fx.client();
    const parts = [randomBytes(5 * MiB), randomBytes(5 * MiB), randomBytes(3 * MiB)];
    const uploadId = await createUpload(s3, fx.site.label, 'media/video.bin');
    const etags: string[] = [];
    // Last part first, then the others: the order of arrival must not matter.
    for (const n of [3, 1, 2]) {
      etags[n - 1] = await uploadPart(
        s3,
        fx.site.label,
        'media/video.bin',
        uploadId,
        n,
        parts[n - 1],
      );
    }
    const listed = await s3.send(
      new ListPartsCommand({ Bucket: fx.site.label, Key: 'media/video.bin', UploadId: uploadId }),
    );
    expect(listed.Parts!.map((p) => [p.PartNumber, p.Size, p.ETag])).toEqual([
      [1, 5 * MiB, etags[0]],
      [2, 5 * MiB, etags[1]],
      [3, 3 * MiB, etags[2]],
    ]);
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: fx.site.label }));
    expect(uploads.Uploads!.map((u) => u.UploadId)).toContain(uploadId);

    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: fx.site.label,
        Key: 'media/video.bin',
        UploadId: uploadId,
        MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
      }),
    );
    const whole = Buffer.concat(parts);
    const file = join(fx.dataDir, 'expected.bin');
    writeFileSync(file, whole);
    const layout = await splitFileIntoTracks(file, 8 * MiB);
    if (layout.kind !== 'manifest') throw new Error('expected a streamed layout');
    // S3's multipart ETag for S3 clients; the site route's stays the manifest's commitment.
    const md5 = (b: Buffer) => createHash('md5').update(b).digest();
    expect(done.ETag).toBe(`"${md5(Buffer.concat(parts.map(md5))).toString('hex')}-3"`);
    expect((await getBytes(s3, fx.site.label, 'media/video.bin')).equals(whole)).toBe(true);
    const served = await gatewayGet(fx.lab.gw, `/site/${fx.site.tape}/media/video.bin`);
    expect(served.body.equals(whole)).toBe(true);
    expect(String(served.headers.etag)).toContain(layout.manifestDigest.commitment.toString('hex'));
    expect(
      (await s3.send(new ListMultipartUploadsCommand({ Bucket: fx.site.label }))).Uploads ?? [],
    ).toEqual([]);
    // The parts are gone; the upload is remembered as completed (a retry answers the same ETag).
    expect(uploadDirs()).toEqual([uploadId]);
    expect(readdirSync(join(fx.dataDir, 's3-multipart', uploadId)).sort()).toEqual([
      'completed.json',
      'upload.json',
    ]);
  });

  it('a wrong ETag in the part list is InvalidPart; abort forgets the upload and its bytes', async () => {
    const s3 = fx.client();
    const uploadId = await createUpload(s3, fx.site.label, 'aborted.bin');
    await uploadPart(s3, fx.site.label, 'aborted.bin', uploadId, 1, randomBytes(1000));
    const wrong = await failure(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: fx.site.label,
          Key: 'aborted.bin',
          UploadId: uploadId,
          MultipartUpload: { Parts: [{ ETag: `"${'0'.repeat(64)}"`, PartNumber: 1 }] },
        }),
      ),
    );
    expect(wrong.name).toBe('InvalidPart');
    expect(uploadDirs()).toContain(uploadId);
    await s3.send(
      new AbortMultipartUploadCommand({
        Bucket: fx.site.label,
        Key: 'aborted.bin',
        UploadId: uploadId,
      }),
    );
    expect(uploadDirs()).not.toContain(uploadId);
    const late = await failure(
      uploadPart(s3, fx.site.label, 'aborted.bin', uploadId, 2, randomBytes(10)),
    );
    expect(late.name).toBe('NoSuchUpload');
  });

  it('upload ids that are paths or garbage are NoSuchUpload, and touch no file', async () => {
    const s3 = fx.client();
    const before = uploadDirs();
    for (const id of ['../../../etc/passwd', '..', 'x'.repeat(2000), 'a\u0000b', '0'.repeat(32)]) {
      const listed = await failure(
        s3.send(new ListPartsCommand({ Bucket: fx.site.label, Key: 'k', UploadId: id })),
      );
      expect(listed.name).toBe('NoSuchUpload');
      const part = await failure(uploadPart(s3, fx.site.label, 'k', id, 1, Buffer.from('x')));
      expect(part.name).toBe('NoSuchUpload');
      const aborted = await failure(
        s3.send(new AbortMultipartUploadCommand({ Bucket: fx.site.label, Key: 'k', UploadId: id })),
      );
      expect(aborted.name).toBe('NoSuchUpload');
    }
    expect(uploadDirs()).toEqual(before);
  });

  it('a part that would overfill the tape is refused with "insufficient capacity"', async () => {
    const small = await tapeWithCredential(fx.lab, { capacity: '6m' });
    const s3 = fx.client(small);
    const uploadId = await createUpload(s3, small.label, 'too-big.bin');
    await uploadPart(s3, small.label, 'too-big.bin', uploadId, 1, randomBytes(5 * MiB));
    const refused = await failure(
      uploadPart(s3, small.label, 'too-big.bin', uploadId, 2, randomBytes(5 * MiB)),
    );
    expect([refused.name, refused.status]).toEqual(['InsufficientStorage', 507]);
    expect(refused.message).toMatch(/^insufficient capacity/);
  });

  it('an upload in progress survives a gateway restart and completes afterwards', async () => {
    const parts = [randomBytes(5 * MiB), randomBytes(2 * MiB)];
    const before = fx.client();
    const uploadId = await createUpload(before, fx.site.label, 'resumed.bin');
    const first = await uploadPart(before, fx.site.label, 'resumed.bin', uploadId, 1, parts[0]);

    await fx.lab.restart();

    const after = fx.client();
    const listed = await after.send(
      new ListPartsCommand({ Bucket: fx.site.label, Key: 'resumed.bin', UploadId: uploadId }),
    );
    expect(listed.Parts!.map((p) => [p.PartNumber, p.ETag])).toEqual([[1, first]]);
    const second = await uploadPart(after, fx.site.label, 'resumed.bin', uploadId, 2, parts[1]);
    await after.send(
      new CompleteMultipartUploadCommand({
        Bucket: fx.site.label,
        Key: 'resumed.bin',
        UploadId: uploadId,
        MultipartUpload: {
          Parts: [
            { ETag: first, PartNumber: 1 },
            { ETag: second, PartNumber: 2 },
          ],
        },
      }),
    );
    expect((await getBytes(after, fx.site.label, 'resumed.bin')).equals(Buffer.concat(parts))).toBe(
      true,
    );
  });
});
