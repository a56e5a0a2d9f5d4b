import 'reflect-metadata';
import { createHash, randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { S3BackendNoSuchUploadError, S3BackendSlowDownError } from '../s3-backend';
import { eventually } from '../../../test/support/jest/eventually';
import {
  newUpload,
  readAll,
  sha256,
  sharedReplicas,
  TAPE,
} from './shared-multipart-store.spec-support';

describe('SharedMultipartStore and SharedSpoolLedger (a real redis-server, a bucket in memory)', () => {
  const { twoReplicas } = sharedReplicas();

  it('creates racing on two replicas never pass max_uploads_per_tape together', async () => {
    const { a, b } = twoReplicas();
    const attempts = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? a : b).store.create(
          { tapeAddress: TAPE, key: `k${i}`, contentType: undefined, metadata: {} },
          5,
        ),
      ),
    );
    expect(attempts.filter((u) => u !== null)).toHaveLength(5);
    expect([await a.store.openUploads(TAPE), await b.store.openUploads(TAPE)]).toEqual([5, 5]);
    for (const upload of attempts) if (upload) await a.store.remove(upload);
  });

  it('parts taken by two replicas are listed and concatenated by either; completion frees bytes and budget', async () => {
    const { bucket, a, b } = twoReplicas();
    const upload = await newUpload(a.store);
    const [one, two] = [randomBytes(3000), randomBytes(1000)];
    await b.store.writePart(upload, 2, Readable.from([two]), await b.ledger.reserve(TAPE, 1000));
    const info = await a.store.writePart(
      upload,
      1,
      Readable.from([one]),
      await a.ledger.reserve(TAPE, 3000),
    );
    expect(info.etag).toBe(createHash('sha256').update(one).digest('hex'));
    expect(await b.store.openUploads(TAPE)).toBe(1);
    expect((await a.store.list(TAPE)).map((u) => u.uploadId)).toEqual([upload.uploadId]);
    expect((await b.store.parts(upload)).map((p) => [p.partNumber, p.size])).toEqual([
      [1, 3000],
      [2, 1000],
    ]);
    expect([await a.ledger.tapeBytes(TAPE), await b.ledger.totalBytes()]).toEqual([4000, 4000]);
    const read = await b.store.completionParts(upload, () => [
      { partNumber: 1, etag: '' },
      { partNumber: 2, etag: '' },
    ]);
    expect(read.sizes).toEqual([3000, 1000]);
    const whole = await readAll(await read.concatenate());
    expect(whole.equals(Buffer.concat([one, two]))).toBe(true);

    await a.store.markCompleted(upload, { etag: 'e'.repeat(64), lastModified: new Date() });
    expect(bucket.objects.size).toBe(0);
    expect(await b.ledger.totalBytes()).toBe(0);
    expect(await b.store.openUploads(TAPE)).toBe(0);
    expect((await b.store.find(TAPE, 'big.bin', upload.uploadId)).done?.etag).toBe('e'.repeat(64));
    await expect(b.store.get(TAPE, 'big.bin', upload.uploadId)).rejects.toBeInstanceOf(
      S3BackendNoSuchUploadError,
    );
  });

  it('a part sent again replaces the first (one object, counted once)', async () => {
    const { bucket, a, b } = twoReplicas();
    const upload = await newUpload(a.store);
    await a.store.writePart(
      upload,
      1,
      Readable.from([randomBytes(500)]),
      await a.ledger.reserve(TAPE, 500),
    );
    await b.store.writePart(
      upload,
      1,
      Readable.from([randomBytes(700)]),
      await b.ledger.reserve(TAPE, 700),
    );
    expect(bucket.objects.size).toBe(1);
    expect(await a.ledger.tapeBytes(TAPE)).toBe(700);
    await b.store.remove(upload);
    expect([bucket.objects.size, await a.ledger.totalBytes()]).toEqual([0, 0]);
  });

  describe('a part sent again while the other replica joins the parts', () => {
    /**
     * Parts 1 and 2 stored through replica a; a then completes: under the completion lock it
     * reads the part list, and before it streams a part, part 1 is sent again through replica
     * b, given time enough to land if nothing holds it back (its old object was then deleted
     * under the join). `commit` stands for what the backend does with the bytes joined.
     */
    async function sentDuringJoin(
      commit: (joined: Buffer) => Promise<void>,
      request: 'part' | 'sweep' = 'part',
    ) {
      const replicas = twoReplicas();
      const { a, b } = replicas;
      const upload = await newUpload(a.store);
      const [one, two, again] = [randomBytes(300), randomBytes(200), randomBytes(300)];
      await a.store.writePart(upload, 1, Readable.from([one]), await a.ledger.reserve(TAPE, 300));
      await a.store.writePart(upload, 2, Readable.from([two]), await a.ledger.reserve(TAPE, 200));
      const listed = [one, two].map((data, i) => ({ partNumber: i + 1, etag: sha256(data) }));
      const sent: { part?: Promise<unknown> } = {};
      const completion = a.store.completing(upload.uploadId, async () => {
        const read = await a.store.completionParts(upload, () => listed);
        sent.part =
          request === 'part'
            ? b.store.writePart(
                upload,
                1,
                Readable.from([again]),
                await b.ledger.reserve(TAPE, 300),
              )
            : // b's sweeper, at a time when the upload has long expired.
              b.store.removeExpired(Date.now() + 1e12);
        const settled = sent.part.then(
          () => undefined,
          () => undefined,
        );
        await Promise.race([settled, new Promise((r) => setTimeout(r, 300))]);
        await commit(await readAll(await read.concatenate()));
      });
      return { ...replicas, upload, one, two, again, sent, completion };
    }

    it('joins the listed bytes; the part sent again waits, then is refused as NoSuchUpload', async () => {
      const joined: Buffer[] = [];
      const { a, bucket, upload, one, two, sent, completion } = await sentDuringJoin(
        async (bytes) => {
          joined.push(bytes);
          await a.store.markCompleted(upload, { etag: 'e'.repeat(64), lastModified: new Date() });
        },
      );

      await completion;
      expect(joined.map((bytes) => bytes.equals(Buffer.concat([one, two])))).toEqual([true]);
      await expect(sent.part).rejects.toBeInstanceOf(S3BackendNoSuchUploadError);
      expect([bucket.objects.size, await a.ledger.totalBytes()]).toEqual([0, 0]);
    });

    it('a sweep on the other replica waits, and leaves the upload it completed', async () => {
      const joined: Buffer[] = [];
      const { a, bucket, upload, one, two, sent, completion } = await sentDuringJoin(
        async (bytes) => {
          joined.push(bytes);
          await a.store.markCompleted(upload, { etag: 'e'.repeat(64), lastModified: new Date() });
        },
        'sweep',
      );

      await completion;
      expect(joined.map((bytes) => bytes.equals(Buffer.concat([one, two])))).toEqual([true]);
      expect(await sent.part).toBe(0);
      expect([bucket.objects.size, await a.ledger.totalBytes()]).toEqual([0, 0]);
    });

    it('stores the part sent again once a failed completion lets go, replacing the old one', async () => {
      const { a, b, bucket, upload, one, two, again, sent, completion } = await sentDuringJoin(
        (bytes) => {
          expect(bytes.equals(Buffer.concat([one, two]))).toBe(true);
          return Promise.reject(new Error('the chain refused the write'));
        },
      );

      await expect(completion).rejects.toThrow('the chain refused the write');
      await sent.part;
      expect((await b.store.parts(upload)).map((p) => p.etag)).toEqual([
        sha256(again),
        sha256(two),
      ]);
      expect([bucket.objects.size, await a.ledger.totalBytes()]).toEqual([2, 500]);
      const read = await b.store.completionParts(upload, (stored) =>
        stored.map(({ partNumber, etag }) => ({ partNumber, etag })),
      );
      expect((await readAll(await read.concatenate())).equals(Buffer.concat([again, two]))).toBe(
        true,
      );
      await b.store.remove(upload);
      expect([bucket.objects.size, await a.ledger.totalBytes()]).toEqual([0, 0]);
    });
  });

  it('an abort on one replica racing a part on the other leaves neither the part nor its budget', async () => {
    const { bucket, a, b } = twoReplicas();
    const upload = await newUpload(a.store);
    const body = new PassThrough();
    const writing = a.store.writePart(upload, 1, body, await a.ledger.reserve(TAPE, 100));
    body.write(randomBytes(50));
    await b.store.remove(upload);
    body.end(randomBytes(50));
    await expect(writing).rejects.toBeInstanceOf(S3BackendNoSuchUploadError);
    expect([bucket.objects.size, await b.ledger.totalBytes()]).toEqual([0, 0]);
  });

  it('holds the spool limit over both replicas, and a dead replica’s body holds lapse', async () => {
    const { a, b } = twoReplicas({ limit: 100, holdMs: 200 });
    const held = await a.ledger.reserve(TAPE, 60);
    await expect(b.ledger.reserve(TAPE, 50)).rejects.toBeInstanceOf(S3BackendSlowDownError);
    held.release();
    await eventually('the hold released', async () => (await a.ledger.totalBytes()) === 0);
    const again = await b.ledger.reserve(TAPE, 90);
    // Never released (its replica died): given back once it lapses.
    void again;
    await new Promise((r) => setTimeout(r, 250));
    await b.ledger.reserve(TAPE, 90);
    expect(await a.ledger.totalBytes()).toBe(90);
  });

  it('holds one tape to its share over both replicas while another tape still writes', async () => {
    const { a, b } = twoReplicas({ limit: 1000, tapeLimit: 400 });
    const OTHER = 'TapeB111111111111111111111111111111111111111';
    const held = await a.ledger.reserve(TAPE, 400);
    const refused = b.ledger.reserve(TAPE, 1);
    await expect(refused).rejects.toBeInstanceOf(S3BackendSlowDownError);
    await expect(b.ledger.reserve(TAPE, 1)).rejects.toThrow(/holds 400 of the 400 bytes/);
    expect((await b.ledger.reserve(OTHER, 400)).bytes).toBe(400);
    held.release();
    await eventually('the hold released', async () => (await a.ledger.tapeBytes(TAPE)) === 0);
    expect((await b.ledger.reserve(TAPE, 400)).bytes).toBe(400);
  });

  it('removes idle uploads and every upload of an ended tape on any replica, with their budget', async () => {
    const { a, b, bucket } = twoReplicas({ idleMs: 60_000 });
    const OTHER = 'TapeB111111111111111111111111111111111111111';
    const begin = async (tapeAddress: string, key: string) =>
      (await a.store.create({ tapeAddress, key, contentType: undefined, metadata: {} }, 10))!;
    const idle = await begin(TAPE, 'idle');
    const busy = await begin(TAPE, 'busy');
    const other = await begin(OTHER, 'x');
    for (const [upload, bytes] of [
      [idle, 10],
      [busy, 20],
      [other, 30],
    ] as const) {
      const hold = await a.ledger.reserve(upload.tapeAddress, bytes);
      await a.store.writePart(upload, 1, Readable.from([randomBytes(bytes)]), hold);
    }
    expect((await b.store.openTapes()).sort()).toEqual([TAPE, OTHER].sort());
    // Seen from the other replica: nothing is idle half a minute on, all three two minutes on.
    expect(await b.store.removeExpired(Date.now() + 30_000)).toBe(0);
    expect(await b.ledger.totalBytes()).toBe(60);
    expect(await b.store.removeExpired(Date.now() + 120_000)).toBe(3);
    expect([await b.ledger.totalBytes(), bucket.objects.size]).toEqual([0, 0]);

    const again = await begin(OTHER, 'y');
    await a.store.writePart(
      again,
      1,
      Readable.from([randomBytes(7)]),
      await a.ledger.reserve(OTHER, 7),
    );
    expect(await b.store.removeTapeUploads(OTHER)).toBe(1);
    expect([await b.ledger.totalBytes(), await b.store.openUploads(OTHER)]).toEqual([0, 0]);
    await expect(a.store.get(OTHER, 'y', again.uploadId)).rejects.toBeInstanceOf(
      S3BackendNoSuchUploadError,
    );
  });
});
