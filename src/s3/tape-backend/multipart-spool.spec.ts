import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { StorageConfig } from '../../config/storage.config';
import { S3BackendNoSuchUploadError } from '../s3-backend';
import { MultipartSpool } from './multipart-spool';

const TAPE = 'GegjFWW8SVeSTqsyo9ZkEzCQY2mY55T2AUazk4kjfYyT';

async function newSpool(dataDir = mkdtempSync(join(tmpdir(), 'tape-mp-'))) {
  const spool = new MultipartSpool(Object.assign(new StorageConfig(), { data_dir: dataDir }));
  await spool.onModuleInit();
  return { spool, dataDir };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('MultipartSpool', () => {
  it('keeps uploads and parts across a restart and concatenates parts in the listed order', async () => {
    const { spool, dataDir } = await newSpool();
    const upload = await spool.create({
      tapeAddress: TAPE,
      key: 'big.bin',
      contentType: undefined,
      metadata: {},
    });
    const [one, two, three] = [randomBytes(1000), randomBytes(2000), randomBytes(10)];
    // Uploaded out of order, as aws-cli does.
    await spool.writePart(upload, 3, Readable.from([three]));
    const info = await spool.writePart(upload, 1, Readable.from([one]));
    expect(info).toMatchObject({ partNumber: 1, etag: sha256(one), size: 1000 });
    await spool.writePart(upload, 2, Readable.from([randomBytes(5)]));
    await spool.writePart(upload, 2, Readable.from([two])); // replaced

    const { spool: restarted } = await newSpool(dataDir);
    const again = await restarted.get(TAPE, 'big.bin', upload.uploadId);
    const parts = (await restarted.parts(again)).sort((a, b) => a.partNumber - b.partNumber);
    expect(parts.map((p) => [p.partNumber, p.size, p.etag])).toEqual([
      [1, 1000, sha256(one)],
      [2, 2000, sha256(two)],
      [3, 10, sha256(three)],
    ]);
    const listed = [1, 2, 3].map((n) => ({ partNumber: n, etag: parts[n - 1].etag }));
    const whole = await readAll(await restarted.concatenate(again, listed));
    expect(whole.equals(Buffer.concat([one, two, three]))).toBe(true);
    expect(await restarted.list(TAPE)).toHaveLength(1);
    // The replaced part's bytes are gone: one data file per part.
    const files = readdirSync(join(restarted.dir, upload.uploadId));
    expect(files.filter((f) => f.endsWith('.bin'))).toHaveLength(3);

    await restarted.remove(again);
    await expect(restarted.get(TAPE, 'big.bin', upload.uploadId)).rejects.toThrow(
      S3BackendNoSuchUploadError,
    );
    expect(await restarted.list(TAPE)).toEqual([]);
  });

  it('answers NoSuchUpload for another tape, another key, and ids that are paths', async () => {
    const { spool } = await newSpool();
    const upload = await spool.create({
      tapeAddress: TAPE,
      key: 'k',
      contentType: undefined,
      metadata: {},
    });
    await expect(
      spool.get('OtherTape111111111111111111111111111111111', 'k', upload.uploadId),
    ).rejects.toThrow(S3BackendNoSuchUploadError);
    await expect(spool.get(TAPE, 'other', upload.uploadId)).rejects.toThrow(
      S3BackendNoSuchUploadError,
    );
    for (const id of [
      '../../etc',
      '.',
      '',
      upload.uploadId.toUpperCase(),
      `${upload.uploadId}/x`,
    ]) {
      await expect(spool.get(TAPE, 'k', id)).rejects.toThrow(S3BackendNoSuchUploadError);
    }
  });

  it('a part cut off mid-body leaves no record and no bytes', async () => {
    const { spool } = await newSpool();
    const upload = await spool.create({
      tapeAddress: TAPE,
      key: 'k',
      contentType: undefined,
      metadata: {},
    });
    const body = new PassThrough();
    const writing = spool.writePart(upload, 1, body);
    body.write(randomBytes(50_000));
    setTimeout(() => body.destroy(new Error('connection reset')), 10);
    await expect(writing).rejects.toThrow('connection reset');
    expect(await spool.parts(upload)).toEqual([]);
    expect(readdirSync(join(spool.dir, upload.uploadId))).toEqual(['upload.json']);
  });

  it('a part arriving after an abort is refused as NoSuchUpload', async () => {
    const { spool } = await newSpool();
    const upload = await spool.create({
      tapeAddress: TAPE,
      key: 'k',
      contentType: undefined,
      metadata: {},
    });
    await spool.remove(upload);
    await expect(spool.writePart(upload, 1, Readable.from([Buffer.from('x')]))).rejects.toThrow(
      S3BackendNoSuchUploadError,
    );
  });
});
