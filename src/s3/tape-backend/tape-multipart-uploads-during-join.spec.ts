import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { S3BackendNoSuchUploadError } from '../s3-backend';
import { bucket, newCompletion, sha256, TAPE } from './tape-multipart-uploads.spec-support';

describe('CompleteMultipartUpload with a part sent again, or an abort, while it joins the parts', () => {
  /**
   * Parts 1 and 2 stored; once the completion has read its part list under the lock, and before
   * it streams the first part, part 1 is sent again (or the upload aborted): given time enough
   * to land if nothing holds it back (a spool that deleted the part's bytes under the join
   * failed it with a 500).
   */
  async function withRequestDuringJoin(request: 'part' | 'abort' | 'sweep' = 'part') {
    const [one, two, again] = [randomBytes(300), randomBytes(200), randomBytes(300)];
    const completion = await newCompletion(() => Promise.resolve());
    const { sut, begin, store, joining, spool } = completion;
    const { uploadId } = await begin('a.bin');
    await store('a.bin', uploadId, 1, one);
    await store('a.bin', uploadId, 2, two);
    const sent: { request?: Promise<void> } = {};
    joining.before = async () => {
      joining.before = () => Promise.resolve();
      sent.request = {
        part: () => store('a.bin', uploadId, 1, again),
        abort: () => sut.abort(bucket, 'a.bin', uploadId),
        // The sweeper, at a time when the upload has long expired.
        sweep: async () => expect(await spool.removeExpired(Date.now() + 1e12)).toBe(0),
      }[request]();
      const settled = sent.request.then(
        () => undefined,
        () => undefined,
      );
      await Promise.race([settled, new Promise((r) => setTimeout(r, 300))]);
    };
    const partFiles = () =>
      readdirSync(join(spool.dir, uploadId)).filter((name) => name.startsWith('part-'));
    return { ...completion, uploadId, one, two, again, sent, partFiles };
  }

  it('answers 200 with the listed bytes, then refuses the part sent again as NoSuchUpload, keeping nothing', async () => {
    const { commits, complete, budget, uploadId, one, two, sent, partFiles } =
      await withRequestDuringJoin();

    const answer = await complete('a.bin', uploadId, [
      [1, sha256(one)],
      [2, sha256(two)],
    ]);

    expect(answer.status).toBe(200);
    expect(commits).toHaveLength(1);
    expect(commits[0].bytes.equals(Buffer.concat([one, two]))).toBe(true);
    await expect(sent.request).rejects.toBeInstanceOf(S3BackendNoSuchUploadError);
    expect(budget.totalBytes).toBe(0);
    expect(partFiles()).toEqual([]);
  });

  it('stores the part sent again once a failed completion lets go; the next completion joins it', async () => {
    const { sut, commits, commitFailure, budget, uploadId, one, two, again, sent, partFiles } =
      await withRequestDuringJoin();
    commitFailure.next = new Error('the chain refused the write');

    await expect(
      sut.complete(bucket, 'a.bin', uploadId, () => [
        { partNumber: 1, etag: sha256(one) },
        { partNumber: 2, etag: sha256(two) },
      ]),
    ).rejects.toThrow('the chain refused the write');
    await sent.request;
    expect((await sut.listParts(bucket, 'a.bin', uploadId)).map((p) => p.etag)).toEqual([
      sha256(again),
      sha256(two),
    ]);
    // The replaced part's bytes are gone, and counted no more.
    expect(budget.totalBytes).toBe(500);
    expect(partFiles()).toHaveLength(4);

    await sut.complete(bucket, 'a.bin', uploadId, () => [
      { partNumber: 1, etag: sha256(again) },
      { partNumber: 2, etag: sha256(two) },
    ]);
    expect(commits).toHaveLength(1);
    expect(commits[0].bytes.equals(Buffer.concat([again, two]))).toBe(true);
    expect(budget.totalBytes).toBe(0);
  });

  it('an abort sent meanwhile waits for the completion, then answers NoSuchUpload', async () => {
    const { spool, commits, complete, budget, uploadId, one, two, sent } =
      await withRequestDuringJoin('abort');

    const answer = await complete('a.bin', uploadId, [
      [1, sha256(one)],
      [2, sha256(two)],
    ]);

    expect(answer.status).toBe(200);
    expect(commits[0].bytes.equals(Buffer.concat([one, two]))).toBe(true);
    await expect(sent.request).rejects.toBeInstanceOf(S3BackendNoSuchUploadError);
    // The completion is still remembered for the client's retry.
    expect((await spool.find(TAPE, 'a.bin', uploadId)).done).toMatchObject({ etag: 'etag-1' });
    expect(budget.totalBytes).toBe(0);
  });

  it('the sweeper meanwhile waits for the completion, and leaves the upload it completed', async () => {
    const { commits, complete, budget, uploadId, one, two, sent } =
      await withRequestDuringJoin('sweep');

    const answer = await complete('a.bin', uploadId, [
      [1, sha256(one)],
      [2, sha256(two)],
    ]);

    expect(answer.status).toBe(200);
    expect(commits[0].bytes.equals(Buffer.concat([one, two]))).toBe(true);
    await sent.request;
    expect(budget.totalBytes).toBe(0);
  });
});
