import { s3SlowDown } from '../../../src/metering/metering-gate';
import type { IncomingMessage } from 'node:http';
import { createHash, randomUUID } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  S3Backend,
  S3BackendAccessDeniedError,
  S3BackendInsufficientCapacityError,
  S3BackendNoSuchKeyError,
  S3BackendNoSuchUploadError,
  S3BackendTapeExpiredError,
  S3Bucket,
  S3ByteRange,
  S3CopyObjectInput,
  S3CreateMultipartInput,
  S3DeleteOutcome,
  S3MultipartUploadInfo,
  S3ObjectHead,
  S3ObjectInfo,
  S3ObjectStream,
  S3PartInfo,
  S3PartListCheck,
  S3PutObjectInput,
  S3UploadPartInput,
  S3WriteResult,
} from '../../../src/s3/s3-backend';
import { S3Credential, S3CredentialStore } from '../../../src/s3/s3-credential-store';
import { S3MeterDecision, S3RequestMeter } from '../../../src/s3/s3-request-meter';

/**
 * A test double of the S3Backend port: objects in memory, committed only when the verified
 * body stream ended (as the real backend must), with switches for the tape states the protocol
 * layer has to report (full, expired, undelegated) and a log of calls.
 */
interface StoredObject {
  data: Buffer;
  head: S3ObjectHead;
}

interface Upload {
  info: S3MultipartUploadInfo;
  contentType: string | undefined;
  metadata: Record<string, string>;
  parts: Map<number, { data: Buffer; info: S3PartInfo }>;
}

export interface MemoryTape {
  bucket: S3Bucket;
  objects: Map<string, StoredObject>;
  uploads: Map<string, Upload>;
  /** Bytes the tape can hold; undefined = unlimited. */
  capacity?: number;
  expired?: boolean;
  undelegated?: boolean;
}

export class MemoryS3Backend extends S3Backend {
  readonly tapes = new Map<string, MemoryTape>();
  readonly calls: string[] = [];
  /** Delay CompleteMultipartUpload and CopyObject (to exercise the keep-alive answer). */
  slowCommitMs = 0;

  addTape(name: string, tapeAddress: string, options: Partial<MemoryTape> = {}): MemoryTape {
    const tape: MemoryTape = {
      bucket: { name, tapeAddress, createdAt: new Date('2026-01-01T00:00:00Z') },
      objects: new Map(),
      uploads: new Map(),
      ...options,
    };
    this.tapes.set(name, tape);
    return tape;
  }

  tape(name: string): MemoryTape {
    const tape = this.tapes.get(name);
    if (!tape) throw new Error(`no tape ${name}`);
    return tape;
  }

  async findBucket(name: string): Promise<S3Bucket | null> {
    return this.tapes.get(name)?.bucket ?? null;
  }

  async findBucketOfTape(tapeAddress: string): Promise<S3Bucket | null> {
    return (
      [...this.tapes.values()].find((t) => t.bucket.tapeAddress === tapeAddress)?.bucket ?? null
    );
  }

  async listObjects(bucket: S3Bucket, prefix: string): Promise<S3ObjectInfo[]> {
    this.calls.push(`listObjects ${prefix}`);
    return [...this.readable(bucket).objects.values()].map(({ head }) => ({
      key: head.key,
      size: head.size,
      etag: head.etag,
      lastModified: head.lastModified,
    }));
  }

  async headObject(bucket: S3Bucket, key: string): Promise<S3ObjectHead> {
    return this.object(bucket, key).head;
  }

  async getObject(bucket: S3Bucket, key: string, range?: S3ByteRange): Promise<S3ObjectStream> {
    const { data, head } = this.object(bucket, key);
    this.calls.push(range ? `getObject ${key} ${range.start}-${range.end}` : `getObject ${key}`);
    const bytes = range ? data.subarray(range.start, range.end + 1) : data;
    return { head, body: Readable.from([bytes]) };
  }

  async putObject(bucket: S3Bucket, input: S3PutObjectInput): Promise<S3WriteResult> {
    const tape = this.writable(bucket, input.size);
    const data = await collect(input.body);
    this.checkCapacity(tape, data.length);
    this.calls.push(`putObject ${input.key}`);
    return this.store(tape, input.key, data, input.contentType, input.metadata);
  }

  async copyObject(bucket: S3Bucket, input: S3CopyObjectInput): Promise<S3WriteResult> {
    const tape = this.writable(bucket, 0);
    const source = this.object(bucket, input.sourceKey);
    await sleep(this.slowCommitMs);
    this.calls.push(`copyObject ${input.sourceKey} ${input.destinationKey}`);
    const contentType = input.replace ? input.replace.contentType : source.head.contentType;
    const metadata = input.replace ? input.replace.metadata : source.head.metadata;
    return this.store(tape, input.destinationKey, source.data, contentType, metadata);
  }

  async deleteObjects(bucket: S3Bucket, keys: string[]): Promise<S3DeleteOutcome[]> {
    const tape = this.writable(bucket, 0);
    return keys.map((key) => {
      this.calls.push(`deleteObject ${key}`);
      tape.objects.delete(key);
      return { key };
    });
  }

  async createMultipartUpload(
    bucket: S3Bucket,
    input: S3CreateMultipartInput,
  ): Promise<{ uploadId: string }> {
    const tape = this.writable(bucket, 0);
    const uploadId = randomUUID();
    tape.uploads.set(uploadId, {
      info: { key: input.key, uploadId, initiated: new Date() },
      contentType: input.contentType,
      metadata: input.metadata,
      parts: new Map(),
    });
    return { uploadId };
  }

  async uploadPart(bucket: S3Bucket, input: S3UploadPartInput): Promise<{ etag: string }> {
    const tape = this.writable(bucket, input.size);
    const upload = this.upload(tape, input.key, input.uploadId);
    const data = await collect(input.body);
    this.calls.push(`uploadPart ${input.key} ${input.partNumber}`);
    const etag = sha256(data);
    upload.parts.set(input.partNumber, {
      data,
      info: { partNumber: input.partNumber, etag, size: data.length, lastModified: new Date() },
    });
    return { etag };
  }

  async listParts(bucket: S3Bucket, key: string, uploadId: string): Promise<S3PartInfo[]> {
    return [...this.upload(this.readable(bucket), key, uploadId).parts.values()].map((p) => p.info);
  }

  async completeMultipartUpload(
    bucket: S3Bucket,
    key: string,
    uploadId: string,
    checkParts: S3PartListCheck,
  ): Promise<S3WriteResult> {
    const tape = this.writable(bucket, 0);
    const upload = this.upload(tape, key, uploadId);
    await sleep(this.slowCommitMs);
    // Checked on the parts joined, with nothing awaited in between (the contract's lock).
    const parts = checkParts([...upload.parts.values()].map((p) => p.info));
    const data = Buffer.concat(parts.map((p) => upload.parts.get(p.partNumber)!.data));
    this.checkCapacity(tape, data.length);
    tape.uploads.delete(uploadId);
    this.calls.push(`completeMultipartUpload ${key} ${parts.map((p) => p.partNumber).join(',')}`);
    return this.store(tape, key, data, upload.contentType, upload.metadata);
  }

  async abortMultipartUpload(bucket: S3Bucket, key: string, uploadId: string): Promise<void> {
    const tape = this.writable(bucket, 0);
    this.upload(tape, key, uploadId);
    tape.uploads.delete(uploadId);
  }

  async listMultipartUploads(bucket: S3Bucket): Promise<S3MultipartUploadInfo[]> {
    return [...this.readable(bucket).uploads.values()].map((u) => u.info);
  }

  private readable(bucket: S3Bucket): MemoryTape {
    const tape = this.tape(bucket.name);
    if (tape.expired) throw new S3BackendTapeExpiredError();
    return tape;
  }

  private writable(bucket: S3Bucket, size: number | undefined): MemoryTape {
    const tape = this.readable(bucket);
    if (tape.undelegated) {
      throw new S3BackendAccessDeniedError(
        'tape not delegated to this gateway (fix: tape delegate <gateway public key>)',
      );
    }
    this.checkCapacity(tape, size ?? 0);
    return tape;
  }

  private checkCapacity(tape: MemoryTape, adding: number): void {
    if (tape.capacity === undefined) return;
    const used = [...tape.objects.values()].reduce((sum, o) => sum + o.data.length, 0);
    if (used + adding > tape.capacity) {
      throw new S3BackendInsufficientCapacityError(`${used} of ${tape.capacity} bytes used`);
    }
  }

  private object(bucket: S3Bucket, key: string): StoredObject {
    const found = this.readable(bucket).objects.get(key);
    if (!found) throw new S3BackendNoSuchKeyError(key);
    return found;
  }

  private upload(tape: MemoryTape, key: string, uploadId: string): Upload {
    const upload = tape.uploads.get(uploadId);
    if (!upload || upload.info.key !== key) throw new S3BackendNoSuchUploadError(uploadId);
    return upload;
  }

  private store(
    tape: MemoryTape,
    key: string,
    data: Buffer,
    contentType: string | undefined,
    metadata: Record<string, string>,
  ): S3WriteResult {
    const lastModified = new Date();
    const etag = sha256(data);
    tape.objects.set(key, {
      data,
      head: {
        key,
        size: data.length,
        etag,
        lastModified,
        contentType: contentType ?? 'application/octet-stream',
        metadata,
      },
    });
    return { etag, lastModified };
  }
}

export class MemoryS3CredentialStore extends S3CredentialStore {
  readonly credentials = new Map<string, S3Credential>();

  issue(accessKeyId: string, secretAccessKey: string, tapeAddress: string): S3Credential {
    const credential = { accessKeyId, secretAccessKey, tapeAddress, revoked: false };
    this.credentials.set(accessKeyId, credential);
    return credential;
  }

  async findByAccessKeyId(accessKeyId: string): Promise<S3Credential | null> {
    return this.credentials.get(accessKeyId) ?? null;
  }
}

/** A meter double: allows everything until told to refuse. */
export class SwitchableS3RequestMeter extends S3RequestMeter {
  refuse = false;
  readonly seen: string[] = [];

  async consume(request: IncomingMessage, kind: 'read' | 'write'): Promise<S3MeterDecision> {
    this.seen.push(`${request.socket.remoteAddress ?? '?'} ${kind}`);
    return this.refuse ? { allowed: false, slowDown: s3SlowDown(7) } : { allowed: true };
  }
}

/** Reads the body the way a backend must: through pipeline, so a failed check rejects. */
async function collect(body: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  await pipeline(
    body,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        parts.push(chunk);
        done();
      },
    }),
  );
  return Buffer.concat(parts);
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
