import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CLI_ENTRY, CliUser } from './cli-process';

export interface TerminalRun {
  code: number | null;
  /** Everything the terminal showed (stdout and stderr, with the typed answer echoed). */
  text: string;
}

/**
 * Runs the built CLI on a pseudo-terminal (util-linux `script`), as a person at a terminal does:
 * stdin, stdout and stderr are the terminal. When the output first matches `answer.when`, the
 * person types `answer.type`.
 */
export function runOnTerminal(
  user: CliUser,
  args: string[],
  answer?: { when: RegExp; type: string },
  timeoutMs = 150_000,
): Promise<TerminalRun> {
  const command = [process.execPath, CLI_ENTRY, ...args]
    .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    ...process.env,
    TAPE_CONFIG_DIR: user.configDir,
    XDG_CACHE_HOME: join(user.configDir, 'cache'),
    TAPE_RPC_URL: user.gateway.rpcUrl,
    TAPE_GATEWAY: user.gateway.url,
    TAPE_SITE_DOMAIN: undefined,
  })) {
    if (v !== undefined) env[k] = v;
  }
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
