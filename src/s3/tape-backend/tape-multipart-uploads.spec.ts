import 'reflect-metadata';
import { Keypair } from '@solana/web3.js';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { S3Config } from '../../config/s3.config';
import { StorageConfig } from '../../config/storage.config';
import { ObjectMetadata } from '../object-metadata';
import { S3Backend, S3BackendNoSuchUploadError, S3Bucket } from '../s3-backend';
import { S3BodyReader } from '../body/s3-body-reader';
import { S3MultipartHandlers } from '../handlers/s3-multipart-handlers';
import { S3RequestContext } from '../s3-context';
import { S3Error } from '../s3-error';
import { MultipartSpool } from './multipart-spool';
import { ObjectCommitter } from './object-committer';
import { SpoolBudget } from './spool-budget';
import { SpoolLedger } from './spool-ledger';
import { TapeDirectory } from './tape-directory';
import { TapeMultipartUploads } from './tape-multipart-uploads';
import { TapeVersions } from './tape-versions';

const TAPE = Keypair.generate().publicKey.toBase58();
const bucket: S3Bucket = { name: 'label', tapeAddress: TAPE, createdAt: new Date(0) };
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** The store's reads a completion makes: the upload's record and its part list. */
interface Reads {
  record: number;
  partList: number;
}

/**
 * The uploads service over a real multipart spool on disk, whose record and part-list reads are
 * counted; the tape (its room), the versions and the committer are simple stand-ins: the
 * committer reads the body it is given and keeps what it was asked to commit.
 */
async function newTestService() {
  const s3 = new S3Config();
  const budget = new SpoolBudget(s3);
  const spool = new MultipartSpool(
    Object.assign(new StorageConfig(), { data_dir: mkdtempSync(join(tmpdir(), 'tape-mpu-')) }),
    budget,
    s3,
  );
  await spool.onModuleInit();
  const reads: Reads = { record: 0, partList: 0 };
  const counted = spool as unknown as Record<
    'loadUpload' | 'storedParts',
    (...args: unknown[]) => Promise<unknown>
  >;
  for (const [method, name] of [
    ['loadUpload', 'record'],
    ['storedParts', 'partList'],
  ] as const) {
    const original = counted[method].bind(spool);
    counted[method] = (...args) => {
      reads[name]++;
      return original(...args);
    };
  }
  // Runs once the completion's locked read is done, before the join streams a part's bytes.
  const joining = { before: () => Promise.resolve() };
  const joined = spool as unknown as Record<
    'concatenate',
    (...args: unknown[]) => Promise<unknown>
  >;
  const concatenate = joined.concatenate.bind(spool);
  joined.concatenate = async (...args) => {
    await joining.before();
    return concatenate(...args);
  };
  const roomAskedFor: number[] = [];
  const tapes = {
    writable: (_bucket: S3Bucket, size: number) => {
      roomAskedFor.push(size);
      return Promise.resolve({ bucket, address: Keypair.generate().publicKey, record: {} });
    },
  };
  const versions = {
    current: () => Promise.resolve(null),
    lookup: () => Promise.resolve(null),
  };
  const commits: Array<{
    bytes: Buffer;
    size: number;
    partSizes?: number[];
    kept: ObjectMetadata;
  }> = [];
  /** Set to make the next commit fail once it has read its body (the chain refused it, say). */
  const commitFailure: { next?: Error } = {};
  const committer = {
    commit: async (
      ...[, , , body, , size, , metadata, partSizes]: Parameters<ObjectCommitter['commit']>
    ) => {
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      const failure = commitFailure.next;
      commitFailure.next = undefined;
      if (failure) throw failure;
      commits.push({ bytes: Buffer.concat(chunks), size: size!, partSizes, kept: metadata() });
      return { etag: `etag-${commits.length}`, lastModified: new Date(1_000_000) };
    },
  };
  const sut = new TapeMultipartUploads(
    tapes as unknown as TapeDirectory,
    versions as unknown as TapeVersions,
    spool,
    committer as unknown as ObjectCommitter,
    {} as SpoolLedger,
    s3,
  );
  const begin = async (key: string) => {
    const upload = await spool.create(
      { tapeAddress: TAPE, key, contentType: undefined, metadata: {} },
      10,
    );
    return upload!;
  };
  const store = async (uploadKey: string, uploadId: string, partNumber: number, data: Buffer) => {
    const upload = await spool.get(TAPE, uploadKey, uploadId);
    await spool.writePart(
      upload,
      partNumber,
      Readable.from([data]),
      budget.reserve(TAPE, data.length),
    );
  };
  return {
    sut,
    s3,
    spool,
    budget,
    reads,
    roomAskedFor,
    commits,
    commitFailure,
    joining,
    begin,
    store,
  };
}

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

/**
 * CompleteMultipartUpload through the real handler, with the part list checked by the handler's
 * rules, over the uploads service above. `beforeCompletion` runs when the handler hands the
 * completion to the backend, before the backend's lock: a part uploaded again there is the race
 * a check made outside the lock would miss.
 */
async function newCompletion(beforeCompletion: () => Promise<void>) {
  const service = await newTestService();
  const { sut, s3 } = service;
  s3.min_part_bytes = 1;
  const backend = {
    listParts: (...args: Parameters<S3Backend['listParts']>) => sut.listParts(...args),
    completeMultipartUpload: async (...args: Parameters<S3Backend['completeMultipartUpload']>) => {
      await beforeCompletion();
      return sut.complete(...args);
    },
  };
  let xml = '';
  const bodies = { readSmall: () => Promise.resolve(Buffer.from(xml)) };
  const handlers = new S3MultipartHandlers(
    backend as unknown as S3Backend,
    bodies as unknown as S3BodyReader,
    s3,
  );
  const complete = (key: string, uploadId: string, listed: Array<[number, string]>) => {
    xml = `<CompleteMultipartUpload>${listed
      .map(([n, etag]) => `<Part><PartNumber>${n}</PartNumber><ETag>"${etag}"</ETag></Part>`)
      .join('')}</CompleteMultipartUpload>`;
    const ctx = {
      bucket,
      address: { key, query: new Map([['uploadId', uploadId]]) },
      raw: { headers: {} },
      origin: 'http://s3.test',
    };
    return handlers.complete(ctx as unknown as S3RequestContext);
  };
  return { ...service, complete };
}

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

describe('CompleteMultipartUpload with a part sent again, or an abort, while it joins the parts', () => {
  /**
   * Parts 1 and 2 stored; once the completion has read its part list under the lock, and before
   * it streams the first part, part 1 is sent again (or the upload aborted): given time enough
   * to land if nothing holds it back (a spool that deleted the part's bytes under the join
   * failed it with a 500).
   */
  async function withRequestDuringJoin(request: 'part' | 'abort' = 'part') {
    const [one, two, again] = [randomBytes(300), randomBytes(200), randomBytes(300)];
    const completion = await newCompletion(() => Promise.resolve());
    const { sut, begin, store, joining, spool } = completion;
    const { uploadId } = await begin('a.bin');
    await store('a.bin', uploadId, 1, one);
    await store('a.bin', uploadId, 2, two);
    const sent: { request?: Promise<void> } = {};
    joining.before = async () => {
      joining.before = () => Promise.resolve();
      sent.request =
        request === 'part'
          ? store('a.bin', uploadId, 1, again)
          : sut.abort(bucket, 'a.bin', uploadId);
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
});
