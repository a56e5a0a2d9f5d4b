import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { findRepoRoot } from './gateway-process';
import { spawnNodeChild } from './node-child';
import { GATEWAY_NODE_FLAGS } from '../../src/node-flags';

/** The repository root, found from here (this file also runs compiled, from dist-bench/). */
export const REPO = findRepoRoot(__dirname);

export interface ObjectGateway {
  url: string;
  port: number;
  /** The admin listener (`/metrics`). */
  adminUrl: string;
  rpcUrl: string;
  dataDir: string;
  pid: number;
  child: ChildProcess;
  logs(): string;
  /** SIGTERM by PID; removes the data directory unless it was given. */
  stop(): Promise<number | null>;
}

export interface ObjectGatewayOptions {
  /** Extra environment (`TAPE__STORAGE__SEGMENT_BYTES`, `TAPE__LOCALNET__EPOCH_DURATION_SECS`…). */
  env?: Record<string, string>;
  logLevel?: string;
  /** Reuse a data directory (restarts); default a fresh one, removed on stop. */
  dataDir?: string;
  /** Extra `node` flags (`--cpu-prof` when profiling). */
  nodeArgs?: string[];
}

/**
 * The built gateway (`node dist/main.js`, after `npm run build`) with the local network
 * embedded, on free loopback ports and a fresh data directory; resolves once /healthz is ready.
 */
export async function startObjectGateway(
  options: ObjectGatewayOptions = {},
): Promise<ObjectGateway> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tape-object-'));
  const port = await freePort();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    HOST: '127.0.0.1',
    PORT: String(port),
    TAPE_S3_PORT: String(await freePort()),
    TAPE_ADMIN_PORT: String(await freePort()),
    TAPE_LOCALNET_PORT: String(await freePort(true)),
    TAPE_DATA_DIR: dataDir,
    TAPE_LOG_LEVEL: options.logLevel ?? 'warn',
    TAPE__LOCALNET__SLOT_MS: '100',
    ...(options.env ?? {}),
  };
  delete env.TAPE_RPC_URL;
  delete env.TAPE_GATEWAY_CONFIG;
  const gateway = spawnNodeChild({
    name: 'gateway',
    nodeFlags: [...GATEWAY_NODE_FLAGS, ...(options.nodeArgs ?? [])],
    entry: join(REPO, 'dist', 'main.js'),
    cwd: REPO,
    env,
  });
  const url = `http://127.0.0.1:${port}`;
  await gateway.waitForHttp(`${url}/healthz`, 30_000);
  return {
    url,
    port,
    adminUrl: `http://127.0.0.1:${env.TAPE_ADMIN_PORT}`,
    rpcUrl: `http://127.0.0.1:${env.TAPE_LOCALNET_PORT}`,
    dataDir,
    pid: gateway.pid,
    child: gateway.child,
    logs: gateway.logs,
    stop: async () => {
      const code = await gateway.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
