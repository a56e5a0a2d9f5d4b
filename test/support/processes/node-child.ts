import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One Node child of the test and benchmark harness (gateways, local network, test apps): spawned
 * with the given flags, its stdout and stderr kept, ready when a line or an HTTP probe says so,
 * stopped by PID. Every launcher in test/support starts its process through here, so a change
 * to how children start, report a failed start or stop is made once.
 */

/**
 * Loads TypeScript in a plain `node` child by transpiling each file on require (TypeScript's
 * own transpileModule: no type check, no build step, no extra package), then runs the entry
 * named by the argument after it. A child loads most of src/ (a gateway app): transpiling it
 * was most of the child's start-up CPU (10 s of 12 for a site gateway), so each output is kept
 * in a directory under the system's temporary one, named by a hash of the TypeScript version,
 * the options, the file's path and its source; a later child with the same file reads it back
 * and loads TypeScript only for a file it has not seen. An edited file hashes differently.
 */
const TS_BOOTSTRAP = `
const fs = require('fs');
const path = require('path');
const { createHash } = require('crypto');
const { tmpdir } = require('os');
let ts;
const compilerOptions = () => ({
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  esModuleInterop: true,
  inlineSourceMap: true,
});
const salt = require('typescript/package.json').version + '\\0' + compilerOptions.toString();
const cacheDir = path.join(tmpdir(), 'tape-test-transpiled');
require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const key = createHash('sha256').update(salt).update('\\0' + filename + '\\0').update(source);
  const cached = path.join(cacheDir, key.digest('hex') + '.js');
  let outputText;
  try {
    outputText = fs.readFileSync(cached, 'utf8');
  } catch {
    ts = ts || require('typescript');
    ({ outputText } = ts.transpileModule(source, { compilerOptions: compilerOptions(), fileName: filename }));
    try {
      fs.mkdirSync(cacheDir, { recursive: true });
      const tmp = cached + '.' + process.pid + '.tmp';
      fs.writeFileSync(tmp, outputText);
      fs.renameSync(tmp, cached);
    } catch {
      // a read-only or full temporary directory: transpiled again next time
    }
  }
  module._compile(outputText, filename);
};
require(process.argv[1]);
`;

/** How long a stopped child may take to exit after SIGTERM before it gets SIGKILL. */
const STOP_GRACE_MS = 15_000;
const POLL_MS = 50;

export interface NodeChildOptions {
  /** What the child is, for error messages ("gateway", "metering app"…). */
  name: string;
  /** Node flags, placed before the entry (gateways: GATEWAY_NODE_FLAGS first). */
  nodeFlags?: readonly string[];
  /** A script path (a `.ts` one is transpiled on require), or inline JavaScript. */
  entry: string | { code: string };
  /** Arguments after the entry (the gateway's `--log-format`). */
  args?: readonly string[];
  /** The Node binary; default the one running the tests (another Node: test/node24.e2e). */
  node?: string;
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * The child's descriptor limit (`ulimit -n`, soft and hard), set by `prlimit`, which execs the
   * child in its place (same PID): as a gateway runs under a low limit.
   */
  maxOpenFiles?: number;
}

export interface NodeChild {
  child: ChildProcess;
  pid: number;
  /** stdout and stderr so far, in the order they arrived. */
  logs(): string;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Resolves with the first match of `pattern` in stdout; see `waitUntil` for failures. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** Resolves once `url` answers 200 (`init` for a POST probe); see `waitUntil` for failures. */
  waitForHttp(url: string, timeoutMs: number, init?: RequestInit): Promise<void>;
  /**
   * Polls `check` until it returns a value. Rejects with the child's output if the child exits
   * first, or SIGKILLs it and rejects with its output when `timeoutMs` runs out.
   */
  waitUntil<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T>;
  /** `signal` (default SIGTERM) by PID, SIGKILL if still running after a grace period. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * The entry `name` beside `dir`: its compiled `.js` when there is one (the dist-bench copy),
 * else its `.ts` source (run through the TypeScript bootstrap).
 */
export function siblingEntry(dir: string, name: string): string {
  const compiled = join(dir, `${name}.js`);
  return existsSync(compiled) ? compiled : join(dir, `${name}.ts`);
}

export function spawnNodeChild(options: NodeChildOptions): NodeChild {
  const entry =
    typeof options.entry !== 'string'
      ? ['-e', options.entry.code]
      : options.entry.endsWith('.ts')
        ? ['-e', TS_BOOTSTRAP, options.entry]
        : [options.entry];
  // TAPE_CHILD_NODE_FLAGS: extra flags for every child, for profiling a benchmark's processes
  // (`--cpu-prof --cpu-prof-dir=…`, which NODE_OPTIONS does not take).
  const extra = process.env.TAPE_CHILD_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const argv = [
    options.node ?? process.execPath,
    ...extra,
    ...(options.nodeFlags ?? []),
    ...entry,
    ...(options.args ?? []),
  ];
  const limit = options.maxOpenFiles;
  const command = limit === undefined ? argv : ['prlimit', `--nofile=${limit}:${limit}`, ...argv];
  const child = spawn(command[0], command.slice(1), {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  let exit: { code: number | null } | undefined;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve((exit = { code }).code));
    child.once('error', (err) => {
      output += `${options.name} could not be started: ${err.message}\n`;
      resolve((exit = { code: null }).code);
    });
  });
  const signal = (sig: NodeJS.Signals) => {
    if (exit || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(child.pid!, sig);
    } catch {
      // exited in between
    }
  };

  const waitUntil = async <T>(
    what: string,
    check: () => Promise<T | undefined>,
    timeoutMs: number,
  ): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (exit) throw new Error(`${options.name} exited (${exit.code}) before ${what}:\n${output}`);
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) {
        signal('SIGKILL');
        throw new Error(
          `${options.name} not ready within ${timeoutMs / 1000} s (waiting for ${what}):\n${output}`,
        );
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  };

  return {
    child,
    pid: child.pid!,
    logs: () => output,
    exited,
    waitUntil,
    waitForLine: (pattern, timeoutMs) =>
      waitUntil(
        `a line matching ${pattern}`,
        async () => pattern.exec(stdout) ?? undefined,
        timeoutMs,
      ),
    waitForHttp: (url, timeoutMs, init) =>
      waitUntil(
        `a 200 from ${url}`,
        async () => {
          try {
            const res = await fetch(url, init);
            await res.arrayBuffer();
            return res.status === 200 ? true : undefined;
          } catch {
            return undefined; // not listening yet
          }
        },
        timeoutMs,
      ).then(() => undefined),
    stop: async (sig: NodeJS.Signals = 'SIGTERM') => {
      signal(sig);
      const escalate =
        sig === 'SIGKILL' ? undefined : setTimeout(() => signal('SIGKILL'), STOP_GRACE_MS);
      try {
        return await exited;
      } finally {
        clearTimeout(escalate);
      }
    },
  };
}
