import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './free-port';
import type { SiteGatewayOptions } from './site-gateway-app';
import { findRepoRoot } from './gateway-process';
import { siblingEntry, spawnNodeChild } from './node-child';
import { GATEWAY_NODE_FLAGS } from '../../src/node-flags';

/** The repository root, from test/support or from its compiled copy in dist-bench/test/support. */
export const REPO_ROOT = findRepoRoot(__dirname);

export interface SiteGateway {
  url: string;
  /** The gateway's S3 listener. */
  s3Url: string;
  port: number;
  rpcUrl: string;
  pid: number;
  child: ChildProcess;
  logs(): string;
  /** Runs `tape <args>` (node dist/cli.js) with its own config directory against this gateway. */
  tape(args: string[], configDir: string): Promise<CliResult>;
  /** SIGTERM by PID; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The site gateway (site-gateway-app.ts) in a process of its own, on free loopback ports. */
export async function startSiteGateway(
  options: Omit<SiteGatewayOptions, 'port' | 'localnetPort' | 's3Port'> & {
    /** A port chosen beforehand (when the config must name it, e.g. in `subdomain_suffix`). */
    port?: number;
  } = {},
): Promise<SiteGateway> {
  const port = options.port ?? (await freePort());
  const s3Port = await freePort();
  const localnetPort = await freePort(true);
  const gateway = spawnNodeChild({
    name: 'site gateway',
    nodeFlags: GATEWAY_NODE_FLAGS,
    // The compiled entry in dist-bench, else the TypeScript source (jest).
    entry: siblingEntry(__dirname, 'site-gateway-main'),
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      SITE_GATEWAY_OPTIONS: JSON.stringify({ ...options, port, localnetPort, s3Port }),
    },
  });
  const [, rpcUrl] = await gateway.waitForLine(/^listening \d+ (\S+)$/m, 60_000);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    s3Url: `http://127.0.0.1:${s3Port}`,
    port,
    rpcUrl,
    pid: gateway.pid,
    child: gateway.child,
    logs: gateway.logs,
    tape: (cliArgs, configDir) => runTape(cliArgs, { configDir, rpcUrl, gateway: url, port }),
    stop: () => gateway.stop(),
  };
}

/** `node dist/cli.js <args>` (from `npm run build`), with the environment a user would set. */
export function runTape(
  args: string[],
  where: { configDir: string; rpcUrl: string; gateway: string; port: number },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      TAPE_CONFIG_DIR: where.configDir,
      TAPE_RPC_URL: where.rpcUrl,
      TAPE_GATEWAY: where.gateway,
      TAPE_SITE_DOMAIN: `localhost:${where.port}`,
    };
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
