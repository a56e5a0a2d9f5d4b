import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TrackStoreStats } from '../../src/tracks/track-store';
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
  /** The track store's counters, read inside the process (needs `storeStats: true`). */
  storeStats(): Promise<TrackStoreStats>;
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
  /** Let `storeStats()` ask the process for its TrackStore counters (benchmarks). */
  storeStats?: boolean;
}

/**
 * Loaded before `dist/main.js` only when `storeStats` is asked for: benchmarks read the track
 * store's own counters (bytes read from storage) by sending the process SIGUSR2.
 */
const STORE_STATS_PRELOAD = `
{
  const { FileTrackStore } = require(${JSON.stringify(join(REPO, 'dist', 'tracks', 'file-track-store.js'))});
  const init = FileTrackStore.prototype.init;
  let store;
  FileTrackStore.prototype.init = function () {
    store = this;
    return init.call(this);
  };
  process.on('SIGUSR2', () => {
    if (!store) return;
    store.stats().then((stats) => process.stdout.write('TRACK_STORE_STATS ' + JSON.stringify(stats) + '\\n'));
  });
}
`;

/**
 * The built gateway (`node dist/main.js`, after `npm run build`) with the local network
 * embedded, on free loopback ports and a fresh data directory; resolves once /healthz is ready.
 */
export async function startObjectGateway(
  options: ObjectGatewayOptions = {},
): Promise<ObjectGateway> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tape-object-'));
  const preload = join(dataDir, 'store-stats-preload.js');
  if (options.storeStats) writeFileSync(preload, STORE_STATS_PRELOAD);
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
    nodeFlags: [
      ...GATEWAY_NODE_FLAGS,
      ...(options.nodeArgs ?? []),
      ...(options.storeStats ? ['--require', preload] : []),
    ],
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
    storeStats: () => {
      const from = gateway.logs().length;
      process.kill(gateway.pid, 'SIGUSR2');
      return new Promise((resolve, reject) => {
        const deadline = Date.now() + 5000;
        const poll = () => {
          const line = /TRACK_STORE_STATS (.+)\n/.exec(gateway.logs().slice(from))?.[1];
          if (line) return resolve(JSON.parse(line) as TrackStoreStats);
          if (Date.now() > deadline)
            return reject(new Error('no TrackStore stats from the gateway'));
          setTimeout(poll, 10);
        };
        poll();
      });
    },
    stop: async () => {
      const code = await gateway.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
