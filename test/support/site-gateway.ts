import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port';
import type { SiteGatewayOptions } from './site-gateway-app';
import { findRepoRoot } from './gateway-process';
import { GATEWAY_NODE_FLAGS } from '../../src/runtime/node-flags';

/** The repository root, from test/support or from its compiled copy in dist-bench/test/support. */
export const REPO_ROOT = findRepoRoot(__dirname);

/**
 * Loads TypeScript in a plain `node` child by transpiling each file on require (TypeScript's
 * own transpileModule: no type check, no build step), then runs the entry. A compiled entry
 * (`.js`, as in dist-bench) runs directly.
 */
const TS_BOOTSTRAP = `
const ts = require('typescript');
const fs = require('fs');
const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  esModuleInterop: true,
  inlineSourceMap: true,
};
require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};
require(process.argv[1]);
`;

export interface SiteGateway {
  url: string;
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
  options: Omit<SiteGatewayOptions, 'port' | 'localnetPort' | 's3Port'> = {},
): Promise<SiteGateway> {
  const port = await freePort();
  const s3Port = await freePort();
  const localnetPort = await freePort(true);
  const compiled = join(__dirname, 'site-gateway-main.js');
  const entry = existsSync(compiled)
    ? [compiled]
    : ['-e', TS_BOOTSTRAP, join(REPO_ROOT, 'test', 'support', 'site-gateway-main.ts')];
  const args = [...GATEWAY_NODE_FLAGS, ...entry];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      SITE_GATEWAY_OPTIONS: JSON.stringify({ ...options, port, localnetPort, s3Port }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  const rpcUrl = await new Promise<string>((resolveStart, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`site gateway did not start within 60 s:\n${output}`));
    }, 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
      const match = /^listening \d+ (\S+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveStart(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`site gateway exited (${code}):\n${output}`));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    rpcUrl,
    pid: child.pid!,
    child,
    logs: () => output,
    tape: (cliArgs, configDir) => runTape(cliArgs, { configDir, rpcUrl, gateway: url, port }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
      return exited;
    },
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
