import { PutBucketPolicyCommand, S3Client } from '@aws-sdk/client-s3';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { REPO_ROOT } from './gateway';

const run = promisify(execFile);
const SCRIPT = join(REPO_ROOT, 'scripts', 'ceph-rgw.sh');

/** A throwaway Ceph cluster with radosgw on loopback (scripts/ceph-rgw.sh). */
export interface CephRgw {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  /** The read-only subuser `tape:reader` (GET, HEAD, List; writes answer AccessDenied). */
  readAccessKey: string;
  readSecretKey: string;
  dir: string;
  /** Stops radosgw only: the store is unreachable, its data stays in the OSD. */
  stopRgw(): Promise<void>;
  /** Starts radosgw again on the same port and waits until S3 answers. */
  startRgw(): Promise<void>;
  /** Stops every daemon by PID and removes the directory. */
  stop(): Promise<void>;
}

export interface CephRgwOptions {
  /** The OSD's in-RAM store (memstore); default 2 GiB. Benchmarks with 1 GiB objects need more. */
  memstoreBytes?: number;
}

export async function startCephRgw(options: CephRgwOptions = {}): Promise<CephRgw> {
  const dir = mkdtempSync(join(tmpdir(), 'tape-ceph-'));
  let out: string;
  const env = {
    ...process.env,
    // The script's own pick is any free ephemeral port, which another worker's connection may take.
    MON_PORT: String(await freePort()),
    RGW_PORT: String(await freePort()),
    ...(options.memstoreBytes !== undefined && { MEMSTORE_BYTES: String(options.memstoreBytes) }),
  };
  try {
    ({ stdout: out } = await run('bash', [SCRIPT, 'start', dir], { timeout: 120_000, env }));
  } catch (err) {
    await run('bash', [SCRIPT, 'stop', dir]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const vars = Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((line) => line.split('=', 2) as [string, string]),
  );
  return {
    endpoint: vars.S3_ENDPOINT,
    accessKey: vars.S3_ACCESS_KEY,
    secretKey: vars.S3_SECRET_KEY,
    readAccessKey: vars.S3_READ_ACCESS_KEY,
    readSecretKey: vars.S3_READ_SECRET_KEY,
    dir,
    stopRgw: async () => {
      await run('bash', [SCRIPT, 'stop-rgw', dir]);
    },
    startRgw: async () => {
      await run('bash', [SCRIPT, 'start-rgw', dir], { timeout: 60_000 });
    },
    stop: async () => {
      await run('bash', [SCRIPT, 'stop', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Makes `bucket` public-read as docs/operator.md describes it: anyone may GET and HEAD its
 * objects and list the bucket (an anonymous reader's store probe lists it).
 */
export async function allowPublicRead(owner: S3Client, bucket: string): Promise<void> {
  await owner.send(
    new PutBucketPolicyCommand({
      Bucket: bucket,
      Policy: JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Principal: '*',
            Action: ['s3:GetObject', 's3:ListBucket'],
            Resource: [`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`],
          },
        ],
      }),
    }),
  );
}
