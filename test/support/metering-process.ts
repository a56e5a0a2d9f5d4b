import { ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { GATEWAY_NODE_FLAGS } from '../../src/runtime/node-flags';

const REPO_ROOT = resolve(__dirname, '..', '..');

/**
 * Loads TypeScript in a plain `node` child by transpiling each file on require (TypeScript's
 * own transpileModule: no type check, no build step, no extra package), then runs the entry.
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

export interface MeteringProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  logs(): string;
  /** SIGTERM by PID; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** The metering test app (test/support/metering-app.ts) in a process of its own. */
export async function startMeteringProcess(
  metering: Record<string, unknown>,
): Promise<MeteringProcess> {
  const entry = join(REPO_ROOT, 'test', 'support', 'metering-app-main.ts');
  const child = spawn(process.execPath, [...GATEWAY_NODE_FLAGS, '-e', TS_BOOTSTRAP, entry], {
    cwd: REPO_ROOT,
    env: { ...process.env, METERING_CONFIG: JSON.stringify(metering) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`metering app did not start within 30 s:\n${output}`));
    }, 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
      const match = /^listening (\d+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePort(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`metering app exited (${code}):\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    child,
    logs: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
      return exited;
    },
  };
}
