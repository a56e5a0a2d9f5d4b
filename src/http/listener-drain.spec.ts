import { Logger } from '@nestjs/common';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { drainBudgetMs, ListenerDrain } from './listener-drain';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A drain over one real listener on a loopback port, answering with `handler`. */
async function newTestDrain(handler: Handler): Promise<{
  sut: ListenerDrain;
  server: Server;
  port: number;
}> {
  const server = createServer(handler);
  const sut = new ListenerDrain();
  sut.register('test', server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { sut, server, port: (server.address() as AddressInfo).port };
}

/** A raw client connection: what it has read, and whether the server has closed it. */
interface Client {
  socket: Socket;
  text: () => string;
  bytes: () => number;
  closed: Promise<void>;
}

async function openClient(port: number, paused = false): Promise<Client> {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let count = 0;
  socket.on('data', (chunk: Buffer) => {
    count += chunk.length;
    if (chunks.length < 4) chunks.push(chunk);
  });
  if (paused) socket.pause();
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  return {
    socket,
    text: () => Buffer.concat(chunks).toString('latin1'),
    bytes: () => count,
    closed,
  };
}

const GET = 'GET / HTTP/1.1\r\nHost: test\r\n\r\n';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(5);
}

/** Whether the port still accepts connections. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

describe('ListenerDrain', () => {
  const servers: Server[] = [];
  const logged: Array<{ level: string; event: unknown }> = [];
  beforeEach(() => {
    for (const level of ['log', 'warn'] as const) {
      jest
        .spyOn(Logger.prototype, level)
        .mockImplementation((...[event]: unknown[]) => void logged.push({ level, event }));
    }
  });
  afterEach(() => {
    jest.restoreAllMocks();
    logged.length = 0;
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      server.close();
    }
  });

  it('lets a request in flight finish before it resolves, its answer saying Connection: close', async () => {
    let answer: (() => void) | undefined;
    const { sut, server, port } = await newTestDrain((_req, res) => {
      answer = () => res.end('finished');
    });
    servers.push(server);
    const client = await openClient(port);
    client.socket.write(GET);
    await until(() => answer !== undefined);

    let resolved = false;
    const drained = sut.drain(5000).then((report) => ((resolved = true), report));
    await sleep(100);
    expect([resolved, await accepts(port)]).toEqual([false, false]);
    answer!();
    const report = await drained;
    await client.closed;

    expect(client.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(client.text()).toMatch(/\r\nConnection: close\r\n/);
    expect(client.text()).toMatch(/\r\n\r\nfinished$/);
    expect([report.drained, report.cut]).toEqual([1, 0]);
    expect(report.ms).toBeGreaterThanOrEqual(90);
    expect(logged).toEqual([
      {
        level: 'log',
        event: { event: 'shutdown_drain', drained: 1, cut: 0, ms: report.ms, budget_ms: 5000 },
      },
    ]);
  });

  it('closes idle connections at once: kept alive between requests, and never used', async () => {
    const { sut, server, port } = await newTestDrain((_req, res) => res.end('ok'));
    servers.push(server);
    const kept = await openClient(port);
    kept.socket.write(GET);
    await until(() => kept.text().endsWith('ok'));
    const unused = await openClient(port);
    await sleep(20);

    const report = await sut.drain(5000);
    await Promise.all([kept.closed, unused.closed]);
    expect(kept.text()).toMatch(/\r\nConnection: keep-alive\r\n/);
    expect([report.drained, report.cut]).toEqual([0, 0]);
    expect(report.ms).toBeLessThan(1000);
  });

  it('closes a kept-alive connection as soon as its answer in flight has been sent', async () => {
    const { sut, server, port } = await newTestDrain((_req, res) => {
      // The head goes out (keep-alive) before the drain; the body after.
      res.writeHead(200, { 'content-length': '4' });
      res.write('ab');
      setTimeout(() => res.end('cd'), 150);
    });
    servers.push(server);
    const client = await openClient(port);
    client.socket.write(GET);
    await until(() => client.text().endsWith('ab'));

    const report = await sut.drain(5000);
    await client.closed;
    expect(client.text()).toMatch(/\r\nConnection: keep-alive\r\n[^]*\r\n\r\nabcd$/);
    expect([report.drained, report.cut]).toEqual([1, 0]);
    expect(report.ms).toBeLessThan(1000);
  });

  it('waits for the request head half received, as a request in flight', async () => {
    const { sut, server, port } = await newTestDrain((_req, res) => res.end('late'));
    servers.push(server);
    const client = await openClient(port);
    client.socket.write('GET / HTTP/1.1\r\nHost: te');
    await sleep(20);

    const drained = sut.drain(5000);
    await sleep(50);
    client.socket.write('st\r\n\r\n');
    const report = await drained;
    await client.closed;
    expect(client.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nlate$/);
    expect([report.drained, report.cut]).toEqual([1, 0]);
  });

  it('answers a request whose bytes arrived with the signal, not yet read', async () => {
    const { sut, server, port } = await newTestDrain((_req, res) => res.end('read'));
    servers.push(server);
    const client = await openClient(port);
    await sleep(20);

    client.socket.write(GET);
    const report = await sut.drain(5000);
    await client.closed;
    expect(client.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nread$/);
    expect(report.cut).toBe(0);
  });

  it('lets a slow reader have every byte of an answer already ended', async () => {
    const size = 8 * 1024 * 1024;
    const { sut, server, port } = await newTestDrain((_req, res) => {
      res.writeHead(200, { 'content-length': size });
      res.end(Buffer.alloc(size, 1));
    });
    servers.push(server);
    const client = await openClient(port, true);
    client.socket.write(GET);
    await sleep(100);

    const drained = sut.drain(5000);
    await sleep(100);
    client.socket.resume();
    const report = await drained;
    await client.closed;
    const head = client.text().indexOf('\r\n\r\n') + 4;
    expect(client.bytes() - head).toBe(size);
    expect([report.drained, report.cut]).toEqual([1, 0]);
  });

  it('past the budget, cuts the connections still busy and counts them', async () => {
    const { sut, server, port } = await newTestDrain(() => undefined);
    servers.push(server);
    const stuck = await Promise.all([openClient(port), openClient(port)]);
    for (const client of stuck) client.socket.write(GET);
    const idle = await openClient(port);
    await sleep(20);

    const report = await sut.drain(150);
    await Promise.all([...stuck, idle].map((client) => client.closed));
    expect(stuck.map((client) => client.text())).toEqual(['', '']);
    expect([report.drained, report.cut]).toEqual([0, 2]);
    expect(report.ms).toBeGreaterThanOrEqual(140);
    expect(report.ms).toBeLessThan(1000);
    // Once: a second call gets the same report; a cut is a warning.
    expect(await sut.drain(5000)).toBe(report);
    expect(logged).toEqual([
      {
        level: 'warn',
        event: {
          event: 'shutdown_drain',
          drained: 0,
          cut: 2,
          ms: report.ms,
          cut_by_listener: { test: 2 },
          budget_ms: 150,
        },
      },
    ]);
  });

  it('drains several listeners together, and one that never listened', async () => {
    const a = await newTestDrain((_req, res) => setTimeout(() => res.end('a'), 100));
    const bServer = createServer((_req, res) => res.end('b'));
    a.sut.register('never listened', createServer());
    a.sut.register('b', bServer);
    await new Promise<void>((resolve) => bServer.listen(0, '127.0.0.1', resolve));
    servers.push(a.server, bServer);
    const bPort = (bServer.address() as AddressInfo).port;
    const clients = await Promise.all([openClient(a.port), openClient(bPort)]);
    for (const client of clients) client.socket.write(GET);
    await sleep(20);

    const report = await a.sut.drain(5000);
    // The server's side closing ends the drain; the client reads the last bytes after that.
    await Promise.all(clients.map((client) => client.closed));
    expect(clients.map((client) => client.text().slice(-1))).toEqual(['a', 'b']);
    expect([report.drained, report.cut]).toEqual([1, 0]);
    expect([await accepts(a.port), await accepts(bPort)]).toEqual([false, false]);
  });
});

describe('drainBudgetMs', () => {
  it('keeps 2 s of the grace period for the modules, or half of a short one', () => {
    expect([10_000, 3000, 2000, 1001, 0].map(drainBudgetMs)).toEqual([8000, 1500, 1000, 501, 0]);
  });
});
