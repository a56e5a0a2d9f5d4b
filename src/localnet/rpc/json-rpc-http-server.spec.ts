import { readFileSync } from 'node:fs';
import { connect, Socket } from 'node:net';
import { join } from 'node:path';
import { eventually } from '../../../test/support/jest/eventually';
import { JsonRpcDispatcher } from './json-rpc-dispatcher';
import {
  JsonRpcHttpServer,
  RPC_HEADERS_TIMEOUT_MS,
  RPC_REQUEST_TIMEOUT_MS,
} from './json-rpc-http-server';
import { ResponsePool } from './response-pool';

const MiB = 1024 * 1024;
/** More than loopback's socket buffers take in, so most of it waits in the process. */
const ANSWER_BYTES = 32 * MiB;
const TIMEOUT_MS = 300;

async function newServer() {
  const pool = new ResponsePool(128 * MiB);
  const dispatcher = new JsonRpcDispatcher(
    { large: () => 'x'.repeat(ANSWER_BYTES), getSlot: () => 7 },
    () => undefined,
    { maxBatchLength: 10, maxResponseBytes: 64 * MiB, maxBatchResponseBytes: 64 * MiB },
    pool,
  );
  const sut = new JsonRpcHttpServer(dispatcher, {
    maxRequestBodyBytes: 50 * 1024,
    onInternalError: () => undefined,
    responseTimeoutMs: TIMEOUT_MS,
    connectionCap: { maxPerAddress: 0 },
  });
  const port = await sut.listen(0, '127.0.0.1');
  return { sut, pool, port };
}

/** A client that sends one request and reads nothing back until told to. */
async function nonReadingClient(port: number, method: string) {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.pause();
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method });
  socket.write(
    `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n` +
      `content-length: ${body.length}\r\n\r\n${body}`,
  );
  let received = 0;
  let closed = false;
  socket.on('data', (chunk: Buffer) => (received += chunk.length));
  socket.once('close', () => (closed = true));
  socket.on('error', () => undefined);
  return { socket, received: () => received, closed: () => closed };
}

describe('JsonRpcHttpServer: answers to clients that do not read', () => {
  let sockets: Socket[] = [];
  let server: JsonRpcHttpServer | undefined;

  afterEach(async () => {
    for (const s of sockets) s.destroy();
    sockets = [];
    await server?.close();
  });

  it('abandons an unread answer after the deadline: connection closed, pool bytes given back', async () => {
    const { sut, pool, port } = await newServer();
    server = sut;
    const client = await nonReadingClient(port, 'large');
    sockets.push(client.socket);
    await eventually('the answer is held', () => pool.available < pool.limit);
    // Held for the deadline, then released though the client still has not read a byte.
    await eventually('the answer is released', () => pool.available === pool.limit, {
      timeoutMs: 10_000,
    });
    client.socket.resume();
    await eventually('the client sees the connection end', client.closed);
    expect(client.received()).toBeLessThan(ANSWER_BYTES);
  }, 30_000);

  it('leaves an answer the client reads alone, and keeps the connection for the next request', async () => {
    const { sut, port } = await newServer();
    server = sut;
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' }),
    });
    expect(await res.json()).toEqual({ jsonrpc: '2.0', result: 7, id: 1 });
    // Past the deadline the kept-alive connection still serves (the timer was for that answer).
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS * 2));
    const again = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'getSlot' }),
    });
    expect(await again.json()).toEqual({ jsonrpc: '2.0', result: 7, id: 2 });
  });
});

describe('the local network JSON-RPC listener timeouts', () => {
  it('are the ones docs/operator.md gives operators', () => {
    const docs = readFileSync(join(__dirname, '../../../docs/operator.md'), 'utf8').replace(
      /\s+/g,
      ' ',
    );
    const stated =
      /JSON-RPC listener has fixed limits: (\d+) s for the head, (\d+) s for the whole request/.exec(
        docs,
      );
    expect(stated?.slice(1).map(Number)).toEqual([
      RPC_HEADERS_TIMEOUT_MS / 1000,
      RPC_REQUEST_TIMEOUT_MS / 1000,
    ]);
  });
});
