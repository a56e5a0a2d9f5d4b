import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs the real S3 clients as child processes (asynchronously: the S3 listener lives in this
 * process and must keep serving while they run).
 */
export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(
  command: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 120000,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The environment without anything that would make a client talk to AWS or read user config. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('AWS_') || k.startsWith('RCLONE_')) continue;
    env[k] = v;
  }
  return env;
}

/** aws-cli 2 from Debian (/usr/bin/aws, not the aws-cli 1 shim on PATH), path-style. */
export function awsCli(endpoint: string, accessKeyId: string, secret: string, timeoutMs?: number) {
  const dir = mkdtempSync(join(tmpdir(), 'tape-aws-'));
  const configFile = join(dir, 'config');
  writeFileSync(configFile, '[default]\nregion = us-east-1\ns3 =\n  addressing_style = path\n');
  const env = {
    ...baseEnv(),
    HOME: dir,
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: secret,
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: configFile,
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'),
    AWS_PAGER: '',
  };
  return (...args: string[]) =>
    run('/usr/bin/aws', ['--endpoint-url', endpoint, ...args], env, timeoutMs);
}

/** rclone's S3 backend (provider Other, path style), configured by environment only. */
export function rclone(endpoint: string, accessKeyId: string, secret: string, timeoutMs?: number) {
  const env = {
    ...baseEnv(),
    RCLONE_CONFIG: '/dev/null',
    RCLONE_S3_PROVIDER: 'Other',
    RCLONE_S3_ACCESS_KEY_ID: accessKeyId,
    RCLONE_S3_SECRET_ACCESS_KEY: secret,
    RCLONE_S3_ENDPOINT: endpoint,
    RCLONE_S3_REGION: 'us-east-1',
    RCLONE_S3_FORCE_PATH_STYLE: 'true',
  };
  return (...args: string[]) => run('rclone', args, env, timeoutMs);
}
