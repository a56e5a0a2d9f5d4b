import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * aws-cli 2 with a config of its own under `work`: path-style, no user profile, no instance
 * metadata; `maxConcurrentRequests` sets `s3.max_concurrent_requests` (aws-cli's default, 10,
 * when absent).
 */
export function awsEnvironment(work: string, maxConcurrentRequests?: string): NodeJS.ProcessEnv {
  const home = join(work, 'aws');
  mkdirSync(home, { recursive: true });
  const config = join(home, 'config');
  const concurrency = maxConcurrentRequests
    ? `  max_concurrent_requests = ${maxConcurrentRequests}\n`
    : '';
  writeFileSync(
    config,
    `[default]\nregion = us-east-1\ns3 =\n  addressing_style = path\n${concurrency}`,
  );
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AWS_')) env[k] = v;
  return {
    ...env,
    HOME: home,
    AWS_CONFIG_FILE: config,
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'credentials'),
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_PAGER: '',
  };
}

/** Runs a command to its end; its stdout, or an error naming it with its stderr. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error)
        reject(
          new Error(`${command} ${args.slice(0, 3).join(' ')} failed: ${stderr || error.message}`),
        );
      else resolve(stdout);
    });
  });
}

/** Seconds `work` took. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e9;
}
