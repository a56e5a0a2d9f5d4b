import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import Redis from 'ioredis';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { startRedis, RedisServer } from '../../../test/support/processes/metering-redis';
import { SharedMultipartStore } from './shared-multipart-store';
import { SharedSpoolLedger } from './shared-spool-ledger';

/** Helpers of the SharedMultipartStore specs: replicas over a real redis-server. */

export const TAPE = 'GegjFWW8SVeSTqsyo9ZkEzCQY2mY55T2AUazk4kjfYyT';

/** A bucket in memory behind the three commands the store sends. */
export class MemoryBucket {
  readonly objects = new Map<string, Buffer>();
  readonly client = {
    send: async (command: unknown) => {
      if (command instanceof PutObjectCommand) {
        const chunks: Buffer[] = [];
        for await (const c of command.input.Body as Readable) chunks.push(c as Buffer);
        this.objects.set(command.input.Key!, Buffer.concat(chunks));
        return {};
      }
      if (command instanceof GetObjectCommand) {
        const data = this.objects.get(command.input.Key!);
        if (!data) throw Object.assign(new Error('NoSuchKey'), { name: 'NoSuchKey' });
        return { Body: Readable.from([data]) };
      }
      if (command instanceof DeleteObjectCommand) {
        this.objects.delete(command.input.Key!);
        return {};
      }
      throw new Error('unexpected command');
    },
  } as unknown as S3Client;
}

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface ReplicaOptions {
  limit?: number;
  tapeLimit?: number;
  holdMs?: number;
  idleMs?: number;
  completionWaitMs?: number;
}

/**
 * A redis-server for the spec file (started in its beforeAll, stopped in its afterAll) and
 * `twoReplicas`: two stores and ledgers over one Redis prefix and one bucket.
 */
export function sharedReplicas() {
  let server: RedisServer;
  const connections: Redis[] = [];
  let n = 0;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    connections.forEach((c) => c.disconnect());
    await server?.stop();
  });
  const twoReplicas = (options: ReplicaOptions = {}) => {
    const prefix = `mp${n++}:`;
    const bucket = new MemoryBucket();
    const replicas = [0, 1].map(() => {
      const redis = new Redis(server.url);
      connections.push(redis);
      const ledger = new SharedSpoolLedger(
        redis,
        prefix,
        options.limit ?? 1e9,
        options.tapeLimit ?? options.limit ?? 1e9,
        options.holdMs ?? 60_000,
      );
      const store = new SharedMultipartStore({
        redis,
        prefix,
        client: bucket.client,
        bucket: 'b',
        objectPrefix: 'tracks/multipart/',
        ledger,
        expiryMs: 3_600_000,
        idleMs: options.idleMs ?? 3_600_000,
        completedKept: 10,
        completionWaitMs: options.completionWaitMs,
      });
      return { ledger, store };
    });
    return { bucket, a: replicas[0], b: replicas[1] };
  };
  return { twoReplicas };
}

/** A new upload of `big.bin` on the test tape. */
export async function newUpload(store: SharedMultipartStore) {
  const upload = { tapeAddress: TAPE, key: 'big.bin', contentType: undefined, metadata: {} };
  const created = await store.create(upload, 100);
  if (!created) throw new Error('the upload was refused');
  return created;
}
