import 'reflect-metadata';
import { Keypair } from '@solana/web3.js';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { S3Config } from '../../config/s3.config';
import { StorageConfig } from '../../config/storage.config';
import { ObjectMetadata } from '../object-metadata';
import { S3Backend, S3Bucket } from '../s3-backend';
import { S3BodyReader } from '../body/s3-body-reader';
import { S3MultipartHandlers } from '../handlers/s3-multipart-handlers';
import { S3RequestContext } from '../s3-context';
import { MultipartSpool } from './multipart-spool';
import { ObjectCommitter } from './object-committer';
import { SpoolBudget } from './spool-budget';
import { SpoolLedger } from './spool-ledger';
import { TapeDirectory } from './tape-directory';
import { TapeMultipartUploads } from './tape-multipart-uploads';
import { TapeVersions } from './tape-versions';

export const TAPE = Keypair.generate().publicKey.toBase58();
export const bucket: S3Bucket = { name: 'label', tapeAddress: TAPE, createdAt: new Date(0) };
export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

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
export async function newTestService() {
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

/**
 * CompleteMultipartUpload through the real handler, with the part list checked by the handler's
 * rules, over the uploads service above. `beforeCompletion` runs when the handler hands the
 * completion to the backend, before the backend's lock: a part uploaded again there is the race
 * a check made outside the lock would miss.
 */
export async function newCompletion(beforeCompletion: () => Promise<void>) {
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
