import { createServer } from 'node:net';

/**
 * Ports handed to child processes are free when probed and bound by the child a moment later.
 * Under Jest every worker takes them from a block of its own below the kernel's ephemeral range
 * (32768 and up on Linux): another worker cannot be handed the same port in that moment, and no
 * `listen(0)` or outgoing connection (both take ephemeral ports) can take it either. Within a
 * process a cursor walks the block, so two calls never return the same port even before the
 * first one is bound. Outside Jest (benchmarks) the kernel picks, as before.
 */
const BLOCK_START = 16000;
const BLOCK_SIZE = 4000;
const BLOCKS = 4;

const workerId = Number(process.env.JEST_WORKER_ID);
const block = Number.isInteger(workerId) && workerId > 0 ? (workerId - 1) % BLOCKS : undefined;
let cursor = Math.floor(Math.random() * BLOCK_SIZE);

function nextCandidate(): number {
  cursor = (cursor + 1) % (BLOCK_SIZE - 1); // the last port stays free for a pair's second port
  return BLOCK_START + (block ?? 0) * BLOCK_SIZE + cursor;
}

/** A TCP port nobody listens on right now (and, with `pair`, the port after it too). */
export async function freePort(pair = false): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (block === undefined) {
      const port = await listenOnce(0);
      if (!pair || (await isFree(port + 1))) return port;
      continue;
    }
    const port = nextCandidate();
    if (pair) cursor++; // the second port of the pair is never handed out on its own
    if ((await isFree(port)) && (!pair || (await isFree(port + 1)))) return port;
  }
  throw new Error('no free port found');
}

async function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const chosen = typeof address === 'object' && address ? address.port : port;
      server.close(() => resolve(chosen));
    });
  });
}

async function isFree(port: number): Promise<boolean> {
  try {
    await listenOnce(port);
    return true;
  } catch {
    return false;
  }
}
