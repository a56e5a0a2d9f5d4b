import { Keypair } from '@solana/web3.js';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { findRepoRoot } from './gateway';
import { spawnNodeChild } from './node-child';

export interface LocalnetProcessOptions {
  /** Reuse a data directory (restarts); default a fresh temporary one, removed on stop. */
  dataDir?: string;
  /** Milliseconds per slot (default 50: tests need block height to move). */
  slotMs?: number;
  epochDurationSecs?: number;
  pricePerMibEpoch?: number;
  env?: Record<string, string>;
  /** Extra node flags for the child (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
}

export interface LocalnetProcess {
  rpcUrl: string;
  wsUrl: string;
  dataDir: string;
  child: ChildProcess;
  logs(): string;
  /** The storage authority (the gateway key the standalone entry created in the data dir). */
  storageAuthority(): Keypair;
  /** Stops the child by its PID; SIGKILL leaves the data dir in place for a restart. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the built standalone local network (`node dist/localnet/standalone.js`, from
 * `npm run build`) on a free port pair and waits until `getHealth` answers.
 */
export async function startLocalnetProcess(
  options: LocalnetProcessOptions = {},
): Promise<LocalnetProcess> {
  const ownDir = !options.dataDir;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tape-localnet-'));
  const port = await freePort(true);
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    TAPE_DATA_DIR: dataDir,
    TAPE_LOCALNET_PORT: String(port),
    TAPE_LOG_LEVEL: 'info',
    TAPE__LOCALNET__SLOT_MS: String(options.slotMs ?? 50),
    TAPE__LOCALNET__EPOCH_DURATION_SECS: String(options.epochDurationSecs ?? 3600),
    TAPE__LOCALNET__PRICE_PER_MIB_EPOCH: String(options.pricePerMibEpoch ?? 1000),
    ...(options.env ?? {}),
  };
  delete env.TAPE_GATEWAY_CONFIG;
  const net = spawnNodeChild({
    name: 'localnet',
    nodeFlags: options.nodeArgs,
    entry: join(findRepoRoot(__dirname), 'dist', 'localnet', 'standalone.js'),
    env,
  });
  const rpcUrl = `http://127.0.0.1:${port}`;
  await net.waitForHttp(rpcUrl, 30_000, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getHealth' }),
  });
  return {
    rpcUrl,
    wsUrl: `ws://127.0.0.1:${port + 1}`,
    dataDir,
    child: net.child,
    logs: net.logs,
    storageAuthority: () =>
      Keypair.fromSecretKey(
        Uint8Array.from(
          JSON.parse(readFileSync(join(dataDir, 'gateway-key.json'), 'utf8')) as number[],
        ),
      ),
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      const code = await net.stop(signal);
      if (ownDir && signal !== 'SIGKILL') rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
