import 'reflect-metadata';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { S3Config } from '../../config/s3.config';
import { StorageConfig } from '../../config/storage.config';
import { S3BackendEntityTooLargeError, S3BackendNoSuchUploadError } from '../s3-backend';
import { MultipartSpool } from './multipart-spool';
import type { MultipartUpload } from './multipart-store';
import { SpoolBudget } from './spool-budget';

const TAPE = 'GegjFWW8SVeSTqsyo9ZkEzCQY2mY55T2AUazk4kjfYyT';

async function newSpool(dataDir = mkdtempSync(join(tmpdir(), 'tape-mp-')), s3 = new S3Config()) {
  const budget = new SpoolBudget(s3);
  const spool = new MultipartSpool(
    Object.assign(new StorageConfig(), { data_dir: dataDir }),
    budget,
    s3,
  );
  await spool.onModuleInit();
  return { spool, budget, dataDir };
}

/** A part body with its budget reserved, as TapeS3Backend.uploadPart sends it. */
function part(
  budget: SpoolBudget,
  bytes: Buffer | number,
): [Readable, ReturnType<SpoolBudget['reserve']>] {
  const data = typeof bytes === 'number' ? randomBytes(bytes) : bytes;
  return [Readable.from([data]), budget.reserve(TAPE, data.length)];
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Begins an upload of `key` (no type, no metadata) on a tape far from its limit. */
async function begin(
  spool: MultipartSpool,
  key = 'k',
  tapeAddress = TAPE,
): Promise<MultipartUpload> {
  const created = await spool.create(
    { tapeAddress, key, contentType: undefined, metadata: {} },
    100,
  );
  if (!created) throw new Error('the upload was refused');
  return created;
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('MultipartSpool', () => {
  it('keeps uploads and parts across a restart and concatenates parts in the listed order', async () => {
    const { spool, budget, dataDir } = await newSpool();
    const upload = await begin(spool, 'big.bin');
    const [one, two, three] = [randomBytes(1000), randomBytes(2000), randomBytes(10)];
    // Uploaded out of order, as aws-cli does.
    await spool.writePart(upload, 3, ...part(budget, three));
    const info = await spool.writePart(upload, 1, ...part(budget, one));
    expect(info).toMatchObject({ partNumber: 1, etag: sha256(one), size: 1000 });
    await spool.writePart(upload, 2, ...part(budget, 5));
    await spool.writePart(upload, 2, ...part(budget, two)); // replaced
    expect(budget.tapeBytes(TAPE)).toBe(3010);

    const { spool: restarted, budget: rebuilt } = await newSpool(dataDir);
    // The budget its parts hold is rebuilt from disk.
    expect(rebuilt.tapeBytes(TAPE)).toBe(3010);
    const again = await restarted.get(TAPE, 'big.bin', upload.uploadId);
    const parts = (await restarted.parts(again)).sort((a, b) => a.partNumber - b.partNumber);
    expect(parts.map((p) => [p.partNumber, p.size, p.etag])).toEqual([
      [1, 1000, sha256(one)],
      [2, 2000, sha256(two)],
      [3, 10, sha256(three)],
    ]);
    const listed = [1, 2, 3].map((n) => ({ partNumber: n, etag: parts[n - 1].etag }));
    const read = await restarted.completionParts(again, () => listed);
    expect(read.sizes).toEqual([1000, 2000, 10]);
    expect(read.stored).toEqual(parts);
    const whole = await readAll(await read.concatenate());
    expect(whole.equals(Buffer.concat([one, two, three]))).toBe(true);
    // A listed part that is not stored: nothing to concatenate.
    const missing = await restarted.completionParts(again, () => [{ partNumber: 4, etag: 'x' }]);
    expect(missing.sizes).toEqual([0]);
    await expect(missing.concatenate()).rejects.toThrow(S3BackendNoSuchUploadError);
    expect(await restarted.list(TAPE)).toHaveLength(1);
    // The replaced part's bytes are gone: one data file per part.
    const files = readdirSync(join(restarted.dir, upload.uploadId));
    expect(files.filter((f) => f.endsWith('.bin'))).toHaveLength(3);

    await restarted.remove(again);
    await expect(restarted.get(TAPE, 'big.bin', upload.uploadId)).rejects.toThrow(
      S3BackendNoSuchUploadError,
    );
    expect(await restarted.list(TAPE)).toEqual([]);
    expect([rebuilt.tapeBytes(TAPE), rebuilt.totalBytes]).toEqual([0, 0]);
  });

  it('answers NoSuchUpload for another tape, another key, and ids that are paths', async () => {
    const { spool } = await newSpool();
    const upload = await begin(spool);
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

  it('a part cut off mid-body leaves no record and no bytes, and gives its budget back', async () => {
    const { spool, budget } = await newSpool();
    const upload = await begin(spool);
    const body = new PassThrough();
    const writing = spool.writePart(upload, 1, body, budget.reserve(TAPE, 100_000));
    body.write(randomBytes(50_000));
    setTimeout(() => body.destroy(new Error('connection reset')), 10);
    await expect(writing).rejects.toThrow('connection reset');
    expect(await spool.parts(upload)).toEqual([]);
    expect(readdirSync(join(spool.dir, upload.uploadId))).toEqual(['upload.json']);
    expect(budget.totalBytes).toBe(0);
  });

  it('cuts off a part at the first byte past its budget, keeping nothing', async () => {
    const { spool, budget } = await newSpool();
    const upload = await begin(spool);
    const body = Readable.from([randomBytes(600), randomBytes(600)]);
    await expect(spool.writePart(upload, 1, body, budget.reserve(TAPE, 1000))).rejects.toThrow(
      S3BackendEntityTooLargeError,
    );
    expect(readdirSync(join(spool.dir, upload.uploadId))).toEqual(['upload.json']);
    expect(budget.totalBytes).toBe(0);
  });

  it('removes uploads past upload_expiry_hours, at start-up and while running, giving back their budget', async () => {
    const s3 = Object.assign(new S3Config(), { upload_expiry_hours: 1 });
    const { spool, budget, dataDir } = await newSpool(undefined, s3);
    const upload = await begin(spool);
    await spool.writePart(upload, 1, ...part(budget, 700));
    expect(spool.openUploads(TAPE)).toBe(1);
    expect(await spool.removeExpired(Date.now() + 30 * 60 * 1000)).toBe(0);
    expect(await spool.removeExpired(Date.now() + 61 * 60 * 1000)).toBe(1);
    expect([spool.openUploads(TAPE), budget.totalBytes]).toEqual([0, 0]);
    expect(readdirSync(spool.dir)).toEqual([]);

    // At start-up: an upload whose upload.json says it began 2 hours ago.
    const old = await begin(spool);
    const record = join(spool.dir, old.uploadId, 'upload.json');
    const initiated = new Date(Date.now() - 2 * 60 * 60 * 1000).toISOString();
    writeFileSync(record, JSON.stringify({ ...old, initiated }));
    const { spool: restarted, budget: rebuilt } = await newSpool(dataDir, s3);
    expect([restarted.openUploads(TAPE), rebuilt.totalBytes]).toEqual([0, 0]);
    expect(readdirSync(restarted.dir)).toEqual([]);
  });

  it('a part arriving after an abort is refused as NoSuchUpload', async () => {
    const { spool, budget } = await newSpool();
    const upload = await begin(spool);
    await spool.remove(upload);
    await expect(spool.writePart(upload, 1, ...part(budget, 1))).rejects.toThrow(
      S3BackendNoSuchUploadError,
    );
    expect(budget.totalBytes).toBe(0);
  });

  it('remembers completed uploads (across a restart, at most completed_uploads_kept) and frees their parts', async () => {
    const s3 = Object.assign(new S3Config(), { completed_uploads_kept: 2 });
    const { spool, budget, dataDir } = await newSpool(undefined, s3);
    const ids: string[] = [];
    for (const key of ['a.bin', 'b.bin', 'c.bin']) {
      const upload = await begin(spool, key);
      await spool.writePart(upload, 1, ...part(budget, 100));
      await spool.markCompleted(upload, { etag: `etag-${key}`, lastModified: new Date(0) });
      ids.push(upload.uploadId);
    }
    // Parts and budget are given back; the completed upload is no longer open.
    expect(budget.tapeBytes(TAPE)).toBe(0);
    expect(spool.openUploads(TAPE)).toBe(0);
    expect(await spool.list(TAPE)).toEqual([]);
    await expect(spool.get(TAPE, 'c.bin', ids[2])).rejects.toBeInstanceOf(
      S3BackendNoSuchUploadError,
    );
    // The two newest are remembered, the oldest forgotten; another key never matches.
    await expect(spool.find(TAPE, 'a.bin', ids[0])).rejects.toBeInstanceOf(
      S3BackendNoSuchUploadError,
    );
    expect((await spool.find(TAPE, 'c.bin', ids[2])).done).toMatchObject({ etag: 'etag-c.bin' });
    await expect(spool.find(TAPE, 'b.bin', ids[2])).rejects.toBeInstanceOf(
      S3BackendNoSuchUploadError,
    );
    expect(readdirSync(dataDir + '/s3-multipart').sort()).toEqual([ids[1], ids[2]].sort());
    const restarted = (await newSpool(dataDir, s3)).spool;
    expect((await restarted.find(TAPE, 'b.bin', ids[1])).done).toMatchObject({
      etag: 'etag-b.bin',
    });
  });

  it('never lets uploads created at once pass the per-tape limit', async () => {
    const { spool } = await newSpool();
    const attempts = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        spool.create({ tapeAddress: TAPE, key: `k${i}`, contentType: undefined, metadata: {} }, 3),
      ),
    );
    expect(attempts.filter((u) => u !== null)).toHaveLength(3);
    expect(spool.openUploads(TAPE)).toBe(3);
    // Another tape has a limit of its own.
    const other = { tapeAddress: 'other', key: 'k', contentType: undefined, metadata: {} };
    expect(await spool.create(other, 3)).not.toBeNull();
  });

  it('removes uploads idle (no part) for upload_idle_hours, long before their expiry', async () => {
    const s3 = Object.assign(new S3Config(), { upload_idle_hours: 2 });
    const { spool, budget, dataDir } = await newSpool(undefined, s3);
    const idle = await begin(spool, 'i');
    await spool.writePart(idle, 1, ...part(budget, 300));
    const hour = 60 * 60 * 1000;
    expect(await spool.removeExpired(Date.now() + hour)).toBe(0);
    expect(await spool.removeExpired(Date.now() + 2 * hour + 60_000)).toBe(1);
    expect([spool.openUploads(TAPE), budget.totalBytes]).toEqual([0, 0]);

    // Found at start-up: its last activity is its directory's last change, not its start.
    const kept = await begin(spool);
    await spool.writePart(kept, 1, ...part(budget, 200));
    const { spool: restarted, budget: rebuilt } = await newSpool(dataDir, s3);
    expect(await restarted.removeExpired(Date.now() + hour)).toBe(0);
    expect(rebuilt.totalBytes).toBe(200);
    expect(await restarted.removeExpired(Date.now() + 2 * hour + 60_000)).toBe(1);
    expect(rebuilt.totalBytes).toBe(0);
  });

  it('removes every upload of one tape, giving back its budget, and keeps the others', async () => {
    const { spool, budget } = await newSpool();
    const OTHER = 'TapeB111111111111111111111111111111111111111';
    const mine = await begin(spool, 'a');
    await begin(spool, 'b');
    const theirs = await begin(spool, 'a', OTHER);
    await spool.writePart(mine, 1, ...part(budget, 500));
    await spool.writePart(theirs, 1, Readable.from([randomBytes(50)]), budget.reserve(OTHER, 50));
    expect((await spool.openTapes()).sort()).toEqual([TAPE, OTHER].sort());
    expect(await spool.removeTapeUploads(TAPE)).toBe(2);
    expect([spool.openUploads(TAPE), budget.tapeBytes(TAPE), budget.totalBytes]).toEqual([
      0, 0, 50,
    ]);
    expect(await spool.openTapes()).toEqual([OTHER]);
    await expect(spool.get(TAPE, 'a', mine.uploadId)).rejects.toBeInstanceOf(
      S3BackendNoSuchUploadError,
    );
  });
});
