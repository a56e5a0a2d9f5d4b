import { Keypair } from '@solana/web3.js';
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './free-port';

/** The repository root, found upwards (this file also runs compiled, from dist-bench/). */
function repoRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

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
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), join(repoRoot(__dirname), 'dist', 'localnet', 'standalone.js')],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  const rpcUrl = `http://127.0.0.1:${port}`;
  await waitForHealth(rpcUrl, child, () => output);
  return {
    rpcUrl,
    wsUrl: `ws://127.0.0.1:${port + 1}`,
    dataDir,
    child,
    logs: () => output,
    storageAuthority: () =>
      Keypair.fromSecretKey(
        Uint8Array.from(
          JSON.parse(readFileSync(join(dataDir, 'gateway-key.json'), 'utf8')) as number[],
        ),
      ),
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
      const code = await exited;
      if (ownDir && signal !== 'SIGKILL') rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}

async function waitForHealth(url: string, child: ChildProcess, logs: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`localnet exited (${child.exitCode}):\n${logs()}`);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getHealth' }),
      });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`localnet not healthy within 30 s:\n${logs()}`);
}
