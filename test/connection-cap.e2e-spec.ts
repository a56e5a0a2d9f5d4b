import { readFileSync } from 'node:fs';
import http from 'node:http';
import { connect, Socket } from 'node:net';
import { SystemProgram } from '@solana/web3.js';
import { eventually } from './support/jest/eventually';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { LocalnetClient } from './support/clients/localnet-client';
import { procStatusBytes } from './support/processes/proc-status';
import { stalledSubscriber } from './support/clients/stalled-subscriber';

/**
 * Issue 34, finding 4: under a 1,024 descriptor limit, 1,100 idle sockets from one address took
 * the gateway and its RPC offline. Now each listener caps the connections of one client address
 * (gateway.max_connections_per_address): a flood of 1,000 idle sockets from one address leaves
 * /healthz answering within 100 ms from another address, the sockets past the cap are closed at
 * once, and the gateway warns at start-up that its descriptor limit is low for its caps.
 */
jest.setTimeout(180_000);

const LIMIT = 1024;
const CAP = 250;
const FLOOD = 1000;
/**
 * Loopback addresses: all of 127/8 reaches the gateway. The flood comes from one the harness
 * does not use (its readiness probe's kept-alive connection from 127.0.0.1 would count too).
 */
const FLOODER = '127.0.0.3';
const OTHER = '127.0.0.2';
const SUBSCRIBER = '127.0.0.4';
const MiB = 1024 * 1024;
/**
 * The gateway's RSS growth allowed under the whole load of issue 34's "done when" (docs/security.md,
 * "Hostile load"): 1,000 idle sockets and 16 stalled subscribers to a rewritten 10 MiB account.
 */
const LOAD_RSS_GROWTH_BOUND = 256 * MiB;

let gw: GatewayProcess;
const flood: Socket[] = [];

beforeAll(async () => {
  gw = await startGateway({
    maxOpenFiles: LIMIT,
    // 3 x 250 (main, S3, admin) + 128 (the local network's RPC) + 16 (its PubSub) + 256 > 1024.
    config: { gateway: { max_connections_per_address: CAP } },
  });
});

afterAll(async () => {
  flood.forEach((s) => s.destroy());
  await gw?.stop();
});

/** An idle TCP connection from `from`; `closed` turns true once the gateway has closed it. */
function idleSocket(port: number, from: string): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    socket.on('error', () => undefined);
    socket.resume(); // reads the gateway's FIN, so `closed` follows
    socket.once('connect', () => resolve(socket));
    socket.once('close', () => resolve(socket));
  });
}

/** GET over a new connection from `from`: its status (0 when the connection failed) and time. */
function timedGet(url: string, from: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.get(url, { localAddress: from, agent: false }, (res) => {
      res.resume();
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }),
      );
    });
    req.once('error', () => resolve({ status: 0, ms: performance.now() - started }));
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

describe('connections per client address', () => {
  it('runs under the lowered descriptor limit and warns that it is low for the caps', async () => {
    const limits = readFileSync(`/proc/${gw.child.pid}/limits`, 'utf8');
    expect(limits).toMatch(new RegExp(`^Max open files\\s+${LIMIT}\\s+${LIMIT}`, 'm'));
    await eventually('the start-up warning logged', () =>
      gw
        .logs()
        .includes(`the descriptor limit (ulimit -n) is ${LIMIT}, low for the connection caps`),
    );
    expect(gw.logs()).toContain('at least 1150');
  });

  it(`1,000 idle sockets from one address: ${CAP} are kept, the rest closed, and /healthz answers others within 100 ms`, async () => {
    for (let i = 0; i < FLOOD; i++) flood.push(await idleSocket(gw.port, FLOODER));
    const open = () => flood.filter((s) => !s.closed).length;
    await eventually(`the sockets past the cap are closed (${CAP} open)`, () => open() === CAP, {
      timeoutMs: 30_000,
      everyMs: 50,
    });

    // Another address: every request answered, the median within 100 ms (a loaded machine may
    // stall one; the goal is the gateway staying responsive, not a wall-clock race).
    const health = [];
    for (let i = 0; i < 7; i++) health.push(await timedGet(`${gw.url}/healthz`, OTHER));
    expect(health.map((h) => h.status)).toEqual(Array(7).fill(200));
    const ms = median(health.map((h) => h.ms));
    process.stdout.write(`/healthz under the flood: median ${ms.toFixed(1)} ms\n`);
    expect(ms).toBeLessThan(100);
    // The S3 listener and the local network's RPC are up too.
    expect((await timedGet(`${gw.s3Url}/`, OTHER)).status).toBeGreaterThan(0);
    expect((await timedGet(`${gw.rpcUrl}/health`, OTHER)).status).toBe(200);

    // The flooding address gets no further connection on that listener.
    expect((await timedGet(`${gw.url}/healthz`, FLOODER)).status).toBe(0);
    expect(gw.logs()).toMatch(/connections_refused[^\n]*"listener":"main"/);
    expect(open()).toBe(CAP);

    // Once it lets go of its sockets, it is served again.
    flood.splice(0).forEach((s) => s.destroy());
    await eventually(
      'the flooding address is served again',
      async () => (await timedGet(`${gw.url}/healthz`, FLOODER)).status === 200,
      { timeoutMs: 10_000, everyMs: 50 },
    );
  });
});

describe("issue 34's load: 1,000 idle sockets plus 16 WebSocket subscribers that never read", () => {
  it('leaves /healthz answering within 100 ms and the process within its memory bound', async () => {
    // The local network's PubSub listens on the port after its JSON-RPC, as Solana's does.
    const wsUrl = gw.rpcUrl
      .replace('http:', 'ws:')
      .replace(/:(\d+)$/, (_, p: string) => `:${Number(p) + 1}`);
    const client = new LocalnetClient(gw.rpcUrl, wsUrl.replace('ws:', 'http:'));
    const sockets: Socket[] = [];
    const subscribers: { ws: { terminate(): void } }[] = [];
    try {
      const payer = await client.funded(200);
      const big = await client.systemAccount(payer, 10 * MiB);
      const pid = gw.child.pid!;
      const baseline = procStatusBytes(pid, 'VmRSS');
      let peak = baseline;
      const sampler = setInterval(() => (peak = Math.max(peak, procStatusBytes(pid, 'VmRSS'))), 20);
      try {
        for (let i = 0; i < FLOOD; i++) sockets.push(await idleSocket(gw.port, FLOODER));
        for (let i = 0; i < 16; i++) {
          subscribers.push(
            await stalledSubscriber(
              wsUrl,
              'accountSubscribe',
              [big.toBase58(), { encoding: 'base64', commitment: 'confirmed' }],
              SUBSCRIBER,
            ),
          );
        }
        for (let i = 0; i < 8; i++) {
          await client.send(
            [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: big, lamports: 1 })],
            [payer],
          );
        }
        const health = [];
        for (let i = 0; i < 9; i++) health.push(await timedGet(`${gw.url}/healthz`, OTHER));
        expect(health.map((h) => h.status)).toEqual(Array(9).fill(200));
        const ms = median(health.map((h) => h.ms));
        peak = Math.max(peak, procStatusBytes(pid, 'VmRSS'));
        process.stdout.write(
          `issue 34 load: /healthz median ${ms.toFixed(1)} ms, max ${Math.max(...health.map((h) => h.ms)).toFixed(1)} ms; ` +
            `RSS growth ${((peak - baseline) / MiB).toFixed(1)} MiB (bound ${LOAD_RSS_GROWTH_BOUND / MiB} MiB)\n`,
        );
        expect(ms).toBeLessThan(100);
        expect(peak - baseline).toBeLessThan(LOAD_RSS_GROWTH_BOUND);
      } finally {
        clearInterval(sampler);
      }
    } finally {
      sockets.forEach((s) => s.destroy());
      subscribers.forEach((s) => s.ws.terminate());
      client.close();
    }
  });
});
