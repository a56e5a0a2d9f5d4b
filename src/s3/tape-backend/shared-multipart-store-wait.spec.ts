import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { S3BackendSlowDownError } from '../s3-backend';
import { newUpload, sha256, sharedReplicas, TAPE } from './shared-multipart-store.spec-support';

describe('SharedMultipartStore: a completion held past the wait limit (a real redis-server)', () => {
  const { twoReplicas } = sharedReplicas();

  /**
   * Two replicas that give up after 300 ms, an upload whose part 1 (300 bytes) is stored, and a
   * completion on replica a that has read the part list and holds the upload until `letGo`.
   */
  async function heldCompletion() {
    const replicas = twoReplicas({ completionWaitMs: 300 });
    const { a } = replicas;
    const upload = await newUpload(a.store);
    const one = randomBytes(300);
    await a.store.writePart(upload, 1, Readable.from([one]), await a.ledger.reserve(TAPE, 300));
    let letGo = (): void => undefined;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    let joining = (): void => undefined;
    const joined = new Promise<void>((resolve) => (joining = resolve));
    const completion = a.store.completing(upload.uploadId, async () => {
      await a.store.completionParts(upload, () => [{ partNumber: 1, etag: sha256(one) }]);
      joining();
      return held;
    });
    await joined;
    return { ...replicas, upload, one, letGo, completion };
  }

  it('a completion held past the wait limit: the other replica’s part and completion get SlowDown and keep nothing', async () => {
    const { a, b, bucket, upload, letGo, completion } = await heldCompletion();

    const started = Date.now();
    const part = b.store.writePart(
      upload,
      2,
      Readable.from([randomBytes(200)]),
      await b.ledger.reserve(TAPE, 200),
    );
    await expect(part).rejects.toBeInstanceOf(S3BackendSlowDownError);
    await expect(part).rejects.toThrow(/another CompleteMultipartUpload .* 300 ms/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    await expect(b.store.completing(upload.uploadId, async () => 'ran')).rejects.toBeInstanceOf(
      S3BackendSlowDownError,
    );
    // The refused part left no object and no budget; the held completion's part is intact.
    expect([bucket.objects.size, await a.ledger.totalBytes()]).toEqual([1, 300]);

    letGo();
    await completion;
    expect(await b.store.completing(upload.uploadId, async () => 'ran')).toBe('ran');
    await a.store.remove(upload);
    expect([bucket.objects.size, await a.ledger.totalBytes()]).toEqual([0, 0]);
  });

  it('part 1 sent again past the wait limit: SlowDown, and part 1 as stored keeps its object and its budget', async () => {
    const { a, b, bucket, upload, one, letGo, completion } = await heldCompletion();

    const again = randomBytes(200);
    await expect(
      b.store.writePart(upload, 1, Readable.from([again]), await b.ledger.reserve(TAPE, 200)),
    ).rejects.toBeInstanceOf(S3BackendSlowDownError);

    expect((await b.store.parts(upload)).map((p) => [p.partNumber, p.etag, p.size])).toEqual([
      [1, sha256(one), 300],
    ]);
    expect([bucket.objects.size, await a.ledger.totalBytes()]).toEqual([1, 300]);
    letGo();
    await completion;
    await a.store.remove(upload);
    expect([bucket.objects.size, await a.ledger.totalBytes()]).toEqual([0, 0]);
  });
});
