import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../processes/gateway';

export const CLI_ENTRY = join(REPO_ROOT, 'dist', 'cli.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  env?: Record<string, string | undefined>;
  /** Called with each stderr chunk and the child, e.g. to interrupt it at a given moment. */
  onStderr?: (text: string, child: ReturnType<typeof spawn>) => void;
  timeoutMs?: number;
}

/** Where a `tape` user points: their config directory, a chain and a gateway. */
export interface CliTarget {
  configDir: string;
  rpcUrl: string;
  gatewayUrl: string;
  /** TAPE_SITE_DOMAIN; default unset (the CLI's own default). */
  siteDomain?: string;
}

/**
 * The environment a user of `tape` sets, over this process's: `extra` last, and a variable set
 * to `undefined` there is removed.
 */
export function cliEnv(
  target: CliTarget,
  extra: Record<string, string | undefined> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    ...process.env,
    TAPE_CONFIG_DIR: target.configDir,
    // The user's own hash cache (docs/cli.md), not the one of whoever runs the tests.
    XDG_CACHE_HOME: join(target.configDir, 'cache'),
    TAPE_RPC_URL: target.rpcUrl,
    TAPE_GATEWAY: target.gatewayUrl,
    TAPE_SITE_DOMAIN: target.siteDomain,
    ...extra,
  })) {
    if (v !== undefined) env[k] = v;
  }
  return env;
}

/**
 * The harness's one CLI runner: `node dist/cli.js <args>` (from `npm run build`) with `env`,
 * its output kept; rejects when it runs past `timeoutMs` (killed).
 */
export function runCli(
  args: string[],
  env: Record<string, string>,
  options: Omit<CliRunOptions, 'env'> & { node?: string } = {},
): Promise<CliResult> {
  const timeoutMs = options.timeoutMs ?? 150_000;
  return new Promise((resolve, reject) => {
    const child = spawn(options.node ?? process.execPath, [CLI_ENTRY, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      options.onStderr?.(d.toString(), child);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tape ${args.join(' ')} took over ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export interface TerminalRun {
  code: number | null;
  /** Everything the terminal showed (stdout and stderr, with the typed answer echoed). */
  text: string;
}

/**
 * `runCli` on a pseudo-terminal (util-linux `script`), as a person at a terminal runs it:
 * stdin, stdout and stderr are the terminal. When the output first matches `answer.when`, the
 * person types `answer.type`.
 */
export function runCliOnTerminal(
  args: string[],
  env: Record<string, string>,
  answer?: { when: RegExp; type: string },
  timeoutMs = 150_000,
): Promise<TerminalRun> {
  const command = [process.execPath, CLI_ENTRY, ...args]
    .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let text = '';
    let answered = false;
    const seen = (d: Buffer) => {
      text += d.toString();
      if (answer && !answered && answer.when.test(text)) {
        answered = true;
        child.stdin.write(answer.type);
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tape ${args.join(' ')} on a terminal took over ${timeoutMs} ms\n${text}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, text });
    });
  });
}

/**
 * A person using the built `tape` CLI (`node dist/cli.js`, from `npm run build`) with a config
 * directory of their own, pointed at one gateway and its chain.
 */
export class CliUser {
  readonly configDir: string;

  constructor(
    readonly gateway: { url: string; rpcUrl: string },
    private readonly baseEnv: Record<string, string | undefined> = {},
    /** The Node binary that runs `tape`; default the one running the tests. */
    private readonly node: string = process.execPath,
  ) {
    this.configDir = mkdtempSync(join(tmpdir(), 'tape-cli-'));
  }

  /** This user's environment (`extra` over it). */
  env(extra: Record<string, string | undefined> = {}): Record<string, string> {
    const target = {
      configDir: this.configDir,
      rpcUrl: this.gateway.rpcUrl,
      gatewayUrl: this.gateway.url,
    };
    return cliEnv(target, { ...this.baseEnv, ...extra });
  }

  run(args: string[], options: CliRunOptions = {}): Promise<CliResult> {
    return runCli(args, this.env(options.env), { ...options, node: this.node });
  }

  /** Runs on a pseudo-terminal (see `runCliOnTerminal`). */
  onTerminal(
    args: string[],
    answer?: { when: RegExp; type: string },
    timeoutMs?: number,
  ): Promise<TerminalRun> {
    return runCliOnTerminal(args, this.env(), answer, timeoutMs);
  }

  /** Runs and expects success; returns stdout. */
  async ok(args: string[], options: CliRunOptions = {}): Promise<string> {
    const r = await this.run(args, options);
    if (r.code !== 0) {
      throw new Error(`tape ${args.join(' ')} exited ${r.code}:\n${r.stderr}${r.stdout}`);
    }
    return r.stdout;
  }

  /** Runs and expects failure: returns the one error line (and checks it is one line). */
  async fails(args: string[], options: CliRunOptions = {}): Promise<string> {
    const r = await this.run(args, options);
    if (r.code === 0) throw new Error(`tape ${args.join(' ')} succeeded:\n${r.stdout}`);
    const lines = r.stderr.trim().split('\n');
    const error = lines.filter((l) => l.startsWith('error: '));
    if (error.length !== 1 || /\n\s+at /.test(r.stderr)) {
      throw new Error(`expected one error line from tape ${args.join(' ')}, got:\n${r.stderr}`);
    }
    return error[0].slice('error: '.length);
  }

  async json<T>(args: string[], options: CliRunOptions = {}): Promise<T> {
    return JSON.parse(await this.ok([...args, '--json'], options)) as T;
  }

  /** keygen + airdrop: a wallet with SOL and storage tokens. */
  async fundedWallet(): Promise<string> {
    const out = await this.ok(['keygen']);
    await this.ok(['airdrop', '--sol', '50', '--tokens', '100000']);
    return /pubkey:\s+(\S+)/.exec(out)![1];
  }

  cleanup(): void {
    rmSync(this.configDir, { recursive: true, force: true });
  }
}

/** `key: value` lines (aligned with spaces) as a map. */
export function keyValues(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const m = /^([a-zA-Z][a-zA-Z _]*?):\s+(.*)$/.exec(line);
    if (m) out[m[1]] = m[2];
  }
  return out;
}
