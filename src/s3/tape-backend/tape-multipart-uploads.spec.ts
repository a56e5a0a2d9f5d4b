import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { S3BackendNoSuchUploadError } from '../s3-backend';
import { S3Error } from '../s3-error';
import {
  bucket,
  newCompletion,
  newTestService,
  sha256,
  TAPE,
} from './tape-multipart-uploads.spec-support';

describe('TapeMultipartUploads.complete', () => {
  it('reads the upload once and its part list once, and commits the listed parts in order', async () => {
    const { sut, spool, reads, roomAskedFor, commits, begin, store } = await newTestService();
    const { uploadId } = await begin('big.bin');
    const [one, two, three] = [randomBytes(3000), randomBytes(2000), randomBytes(10)];
    await store('big.bin', uploadId, 3, three);
    await store('big.bin', uploadId, 1, one);
    await store('big.bin', uploadId, 2, two);
    reads.record = reads.partList = 0;

    const listed = [1, 3].map((n) => ({
      partNumber: n,
      etag: sha256(n === 1 ? one : three),
    }));
    const result = await sut.complete(bucket, 'big.bin', uploadId, () => listed);

    expect(reads).toEqual({ record: 1, partList: 1 });
    expect(result).toEqual({ etag: 'etag-1', lastModified: new Date(1_000_000) });
    // Sized from the listed parts only, part 2 left out.
    expect(roomAskedFor).toEqual([3010]);
    expect(commits).toHaveLength(1);
    expect(commits[0].bytes.equals(Buffer.concat([one, three]))).toBe(true);
    expect(commits[0]).toMatchObject({ size: 3010, partSizes: [3000, 10] });
    expect(commits[0].kept.parts).toEqual({ sizes: [3000, 10] });
    expect((await spool.find(TAPE, 'big.bin', uploadId)).done).toMatchObject({ etag: 'etag-1' });
  });

  it('answers a retry with the kept result from one record read, reading no parts', async () => {
    const { sut, reads, commits, begin, store } = await newTestService();
    const { uploadId } = await begin('a.bin');
    const data = randomBytes(100);
    await store('a.bin', uploadId, 1, data);
    const listed = [{ partNumber: 1, etag: sha256(data) }];
    const first = await sut.complete(bucket, 'a.bin', uploadId, () => listed);
    reads.record = reads.partList = 0;

    expect(await sut.complete(bucket, 'a.bin', uploadId, () => listed)).toEqual(first);
    expect(reads).toEqual({ record: 1, partList: 0 });
    expect(commits).toHaveLength(1);
  });

  it('refuses another key, and a listed part that is not stored, committing nothing', async () => {
    const { sut, commits, begin, store } = await newTestService();
    const { uploadId } = await begin('a.bin');
    const data = randomBytes(100);
    await store('a.bin', uploadId, 1, data);
    const listed = [{ partNumber: 1, etag: sha256(data) }];

    await expect(sut.complete(bucket, 'b.bin', uploadId, () => listed)).rejects.toThrow(
      S3BackendNoSuchUploadError,
    );
    await expect(
      sut.complete(bucket, 'a.bin', uploadId, () => [...listed, { partNumber: 2, etag: 'x' }]),
    ).rejects.toThrow(S3BackendNoSuchUploadError);
    expect(commits).toEqual([]);
  });
});

describe('CompleteMultipartUpload with a part uploaded again meanwhile', () => {
  /** Parts 1 and 2 stored, and part 1 stored again (`again`) just before the backend's lock. */
  async function withPartReplaced() {
    const [one, two, again] = [randomBytes(300), randomBytes(200), randomBytes(300)];
    let replace = async () => {};
    const completion = await newCompletion(() => replace());
    const { uploadId } = await completion.begin('a.bin');
    await completion.store('a.bin', uploadId, 1, one);
    await completion.store('a.bin', uploadId, 2, two);
    replace = () => completion.store('a.bin', uploadId, 1, again);
    return { ...completion, uploadId, one, two, again };
  }

  it('refuses with InvalidPart when the part joined is not the listed ETag, committing nothing', async () => {
    const { commits, complete, uploadId, one, two } = await withPartReplaced();

    const refused = complete('a.bin', uploadId, [
      [1, sha256(one)],
      [2, sha256(two)],
    ]);

    await expect(refused).rejects.toThrow(S3Error);
    await expect(refused).rejects.toMatchObject({ code: 'InvalidPart' });
    expect(commits).toEqual([]);
  });

  it('joins the bytes of the listed ETags when they are the parts stored', async () => {
    const { commits, complete, uploadId, two, again } = await withPartReplaced();

    await complete('a.bin', uploadId, [
      [1, sha256(again)],
      [2, sha256(two)],
    ]);

    expect(commits).toHaveLength(1);
    expect(commits[0].bytes.equals(Buffer.concat([again, two]))).toBe(true);
  });

  it('reads the upload once and its part list once per request, handler and backend together', async () => {
    const data = randomBytes(100);
    const { reads, commits, begin, store, complete } = await newCompletion(() => Promise.resolve());
    const { uploadId } = await begin('a.bin');
    await store('a.bin', uploadId, 1, data);
    reads.record = reads.partList = 0;

    await complete('a.bin', uploadId, [[1, sha256(data)]]);

    expect(reads).toEqual({ record: 1, partList: 1 });
    expect(commits).toHaveLength(1);
  });
});
