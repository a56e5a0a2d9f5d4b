import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from './free-port';
import { spawnNodeChild } from './node-child';
import { GATEWAY_NODE_FLAGS } from '../../../src/node-flags';

/** The directory of tape-gateway's package.json, from test/support or compiled into dist-bench. */
export function findRepoRoot(from: string = __dirname): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (
      existsSync(pkg) &&
      (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'tape-gateway'
    ) {
      return dir;
    }
  }
  throw new Error(`no tape-gateway package.json above ${from}`);
}

export const REPO_ROOT = findRepoRoot();

export interface GatewayOptions {
  /** YAML-shaped config written to a file named by TAPE_GATEWAY_CONFIG. */
  config?: Record<string, unknown>;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Reuse a data directory (for restarts); default: a fresh temporary one. */
  dataDir?: string;
  /** Use an already running chain instead of embedding the local network. */
  rpcUrl?: string;
  /** Node flags; default the ones `npm start` passes (GATEWAY_NODE_FLAGS). */
  nodeFlags?: readonly string[];
  /** Command-line arguments after `dist/main.js` (`--log-format pretty`). */
  args?: readonly string[];
  /** The Node binary; default the one running the tests. */
  node?: string;
  /** The built gateway to run; default this checkout's `dist/main.js` (another build: an A/B run). */
  entry?: string;
  /** The gateway's descriptor limit (`ulimit -n`); default this process's. */
  maxOpenFiles?: number;
  /** TAPE_LOG_LEVEL; default `warn`. */
  logLevel?: string;
  /** A port chosen beforehand (when the config must name it, e.g. in `subdomain_suffix`). */
  port?: number;
}

export interface GatewayProcess {
  url: string;
  s3Url: string;
  rpcUrl: string;
  port: number;
  pid: number;
  /** The admin listener (metrics, /livez, the TLS ask endpoint), on loopback. */
  adminUrl: string;
  adminPort: number;
  dataDir: string;
  child: ChildProcess;
  logs: () => string;
  /** Resolves with the first match of `pattern` in the gateway's stdout. */
  waitForLine: (pattern: RegExp, timeoutMs: number) => Promise<RegExpExecArray>;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/**
 * The harness's one way to start a gateway: the built gateway (`node dist/main.js`, from
 * `npm run build`) as `npm start` runs it, on free loopback ports with the local network
 * embedded (unless `rpcUrl`), a fresh data directory (unless `dataDir`), configured through
 * the environment and a config file as an operator configures it; resolves once /healthz says
 * ready. The site gateway, the S3 lab and the benchmarks' gateways are this with options.
 */
export async function startGateway(options: GatewayOptions = {}): Promise<GatewayProcess> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tape-gw-'));
  const port = options.port ?? (await freePort());
  const s3Port = await freePort();
  const localnetPort = await freePort(true);
  // Every gateway gets its own admin port: several run at once.
  const adminPort = await freePort();
  // Only a config file this start names, not one the test runner's environment happens to carry.
  const { TAPE_GATEWAY_CONFIG: _inherited, ...inherited } = process.env;
  const env: Record<string, string> = {
    ...(inherited as Record<string, string>),
    HOST: '127.0.0.1',
    PORT: String(port),
    TAPE_S3_PORT: String(s3Port),
    TAPE_ADMIN_PORT: String(adminPort),
    TAPE_LOCALNET_PORT: String(localnetPort),
    TAPE_DATA_DIR: dataDir,
    TAPE_LOG_LEVEL: options.logLevel ?? 'warn',
    ...(options.env ?? {}),
  };
  if (options.rpcUrl) env.TAPE_RPC_URL = options.rpcUrl;
  else delete env.TAPE_RPC_URL;
  if (options.config) {
    // Named by port: gateways started together may share a data directory (a writer, its readers).
    const file = join(dataDir, `gateway-${port}.yaml`);
    writeFileSync(file, stringify(options.config));
    env.TAPE_GATEWAY_CONFIG = file;
  }
  const gateway = spawnNodeChild({
    name: 'gateway',
    nodeFlags: options.nodeFlags ?? GATEWAY_NODE_FLAGS,
    node: options.node,
    entry: options.entry ?? join(REPO_ROOT, 'dist', 'main.js'),
    args: options.args,
    cwd: REPO_ROOT,
    env,
    maxOpenFiles: options.maxOpenFiles,
  });
  const url = `http://127.0.0.1:${port}`;
  // Generous: with two test files on the 2 cores, a reader's first /healthz (its store probed)
  // took more than 30 s once.
  await gateway.waitForHttp(`${url}/healthz`, 60_000);
  return {
    url,
    s3Url: `http://127.0.0.1:${s3Port}`,
    rpcUrl: options.rpcUrl ?? `http://127.0.0.1:${localnetPort}`,
    port,
    pid: gateway.pid,
    adminUrl: `http://127.0.0.1:${adminPort}`,
    adminPort,
    dataDir,
    child: gateway.child,
    logs: gateway.logs,
    waitForLine: gateway.waitForLine,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      const code = await gateway.stop(signal);
      if (!options.dataDir && signal !== 'SIGKILL')
        rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
