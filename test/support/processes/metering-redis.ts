import { ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './free-port';

export interface RedisServer {
  port: number;
  url: string;
  pid: number;
  /** Stops this redis-server by its PID (SIGKILL simulates a crash) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A real `redis-server` on loopback, with no persistence; on `port` when given (restarts). */
export async function startRedis(port?: number): Promise<RedisServer> {
  const chosen = port ?? (await freePort());
  const child = spawn(
    'redis-server',
    ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitForPong(chosen, child, () => output);
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    pid: child.pid!,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
      await exited;
    },
  };
}

async function waitForPong(port: number, child: ChildProcess, logs: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited:\n${logs()}`);
    if (await ping(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server not answering on ${port}:\n${logs()}`);
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.setTimeout(500, () => socket.destroy());
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      reply += d.toString();
      if (reply.includes('\r\n')) socket.end();
    });
    socket.on('close', () => resolve(reply.startsWith('+PONG')));
    socket.on('error', () => resolve(false));
  });
}

/**
 * Polls `remaining` (one metered request's RateLimit-Remaining: absent while the store fails
 * open) until a gateway counts again, e.g. after Redis came back; resolves with the value seen.
 * After 15 s it throws with `context()` (say which gateway, with its logs).
 */
export async function waitUntilCounting(
  remaining: () => Promise<string | string[] | null | undefined>,
  context: () => string,
): Promise<string> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const value = await remaining();
    if (typeof value === 'string') return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`did not count again within 15 s: ${context()}`);
}
