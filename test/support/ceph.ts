import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './gateway-process';

const run = promisify(execFile);
const SCRIPT = join(REPO_ROOT, 'scripts', 'ceph-rgw.sh');

/** A throwaway Ceph cluster with radosgw on loopback (scripts/ceph-rgw.sh). */
export interface CephRgw {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  dir: string;
  /** Stops radosgw only: the store is unreachable, its data stays in the OSD. */
  stopRgw(): Promise<void>;
  /** Starts radosgw again on the same port and waits until S3 answers. */
  startRgw(): Promise<void>;
  /** Stops every daemon by PID and removes the directory. */
  stop(): Promise<void>;
}

export async function startCephRgw(): Promise<CephRgw> {
  const dir = mkdtempSync(join(tmpdir(), 'tape-ceph-'));
  let out: string;
  try {
    ({ stdout: out } = await run('bash', [SCRIPT, 'start', dir], { timeout: 120_000 }));
  } catch (err) {
    await run('bash', [SCRIPT, 'stop', dir]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const env = Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((line) => line.split('=', 2) as [string, string]),
  );
  return {
    endpoint: env.S3_ENDPOINT,
    accessKey: env.S3_ACCESS_KEY,
    secretKey: env.S3_SECRET_KEY,
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
