import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import type { HttpAdapterHost } from '@nestjs/core';
import { GatewayConfig } from '../config/app-config';
import { Readable } from 'node:stream';
import { MainListener } from '../http/main-listener';
import { ListenerDrain } from '../http/listener-drain';
import { ShutdownSignal } from '../http/shutdown-signal';
import { MeterDecision } from '../metering/meter-decision';
import { MeteringGate } from '../metering/metering-gate';
import { TooManyRequestsError } from '../metering/too-many-requests.error';
import { OpenedObject } from '../tracks/object-reader';
import { ObjectAnswerWriter, SEND_STALL_MS } from './object-answer-writer';
import { ObjectEdge } from './object-edge';
import { ObjectService } from './object.service';
import { newTestService } from './object-test-service.spec-support';
import { TrackResolver } from './track-resolver';

const ADDRESS = 'Track1111111111111111111111111111111111111';
const BODY_IDLE_MS = 300;

function decision(allowed: boolean, remaining = 9): MeterDecision {
  return {
    allowed,
    budget: 'object',
    limit: 10,
    remaining,
    resetSecs: 30,
    retryAfterSecs: allowed ? 0 : 30,
    degraded: false,
  };
}

interface EdgeFixture {
  url: string;
  edge: ObjectEdge;
  warm: (on: boolean) => void;
  check: jest.Mock;
  enforceBytes: jest.Mock;
  /** Requests the edge did not take (what Fastify would get). */
  passed: string[];
  /** Each response's `setTimeout` calls, with the response. */
  timeouts: [number, () => void, ServerResponse][];
  close: () => Promise<void>;
}

/**
 * An ObjectEdge over the real service (fake chain and reader) and the one object answer writer,
 * registered with a main listener on a loopback server.
 */
async function startEdge(
  opened: Partial<OpenedObject>,
  size: number,
  gate: { requests?: boolean | 'async' | 'slow'; bytes?: boolean } = {},
  answer?: ObjectService['answer'],
): Promise<EdgeFixture> {
  const { sut, resolver } = newTestService(opened, size);
  if (answer) sut.answer = answer;
  const pending: NodeJS.Timeout[] = [];
  const check = jest.fn(() => {
    const d = gate.requests === false ? decision(false, 0) : decision(true);
    if (gate.requests === 'slow') {
      return new Promise((r) => pending.push(setTimeout(() => r(d), 2000)));
    }
    return gate.requests === 'async' ? Promise.resolve(d) : d;
  });
  const enforceBytes = jest.fn(
    async (_req: unknown, sink: { setHeader(n: string, v: string): void }) => {
      if (gate.bytes !== false) return decision(true);
      sink.setHeader('ratelimit-remaining', '0');
      throw new TooManyRequestsError(decision(false, 0), 'object bytes');
    },
  );
  const meter = {
    enabled: true,
    check,
    enforceBytes,
    error: (d: MeterDecision) => new TooManyRequestsError(d, 'object requests'),
  } as unknown as MeteringGate;
  const listener = new MainListener(
    undefined as unknown as HttpAdapterHost,
    new ShutdownSignal(),
    new ListenerDrain(),
  );
  const edge = new ObjectEdge(
    { body_idle_timeout_ms: BODY_IDLE_MS } as GatewayConfig,
    listener,
    resolver as unknown as TrackResolver,
    new ObjectAnswerWriter(sut, meter),
    meter,
  );
  edge.onModuleInit();
  const passed: string[] = [];
  const timeouts: [number, () => void, ServerResponse][] = [];
  // What Fastify would get: the requests the main listener did not answer at its edge.
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    passed.push(`${req.method} ${req.url}`);
    res.end('passed on');
  });
  listener.install(server);
  // Each response's stall timer, seen before the main listener takes the request.
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    const setTimeout = res.setTimeout.bind(res);
    res.setTimeout = (ms: number, onTimeout?: () => void) => {
      timeouts.push([ms, onTimeout!, res]);
      return setTimeout(ms, onTimeout);
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    edge,
    warm: (on) => (resolver.warm = on),
    check,
    enforceBytes,
    passed,
    timeouts,
    close: () => {
      pending.forEach(clearTimeout);
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('ObjectEdge', () => {
  let fixture: EdgeFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('answers a GET of a warm track itself: the bytes, the object headers and the RateLimit headers', async () => {
    const bytes = Buffer.alloc(1000, 7);
    fixture = await startEdge({ bytes, size: 1000 }, 1000);
    const res = await fetch(`${fixture.url}/object/${ADDRESS}?download=1`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    expect(Object.fromEntries(res.headers)).toMatchObject({
      'content-length': '1000',
      'content-type': 'text/plain',
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'access-control-allow-origin': '*',
      'ratelimit-limit': '10',
      'ratelimit-remaining': '9',
      'ratelimit-reset': '30',
    });
    expect(fixture.check).toHaveBeenCalledWith(expect.anything(), 'object');
    expect(fixture.enforceBytes).toHaveBeenCalledWith(expect.anything(), expect.anything(), 1000);
    expect(fixture.passed).toEqual([]);
  });

  it('answers HEAD and ranges like the route: no body for HEAD, 206 with the range charged', async () => {
    fixture = await startEdge({ bytes: Buffer.alloc(1000, 7), size: 1000 }, 1000, {
      requests: 'async',
    });
    const head = await fetch(`${fixture.url}/object/${ADDRESS}`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length')]).toEqual([200, '1000']);
    const ranged = await fetch(`${fixture.url}/object/${ADDRESS}`, {
      headers: { range: 'bytes=10-19' },
    });
    expect([ranged.status, ranged.headers.get('content-range')]).toEqual([206, 'bytes 10-19/1000']);
    expect((await ranged.arrayBuffer()).byteLength).toBe(10);
    expect(fixture.enforceBytes.mock.calls.map((c) => c[2] as number)).toEqual([10]);
  });

  it('leaves everything else untouched: a cold track, another method or path, an encoded address', async () => {
    fixture = await startEdge({ bytes: Buffer.alloc(10), size: 10 }, 10);
    fixture.warm(false);
    await (await fetch(`${fixture.url}/object/${ADDRESS}`)).text();
    fixture.warm(true);
    await (await fetch(`${fixture.url}/object/${ADDRESS}`, { method: 'DELETE' })).text();
    await (await fetch(`${fixture.url}/objects/${ADDRESS}`)).text();
    await (await fetch(`${fixture.url}/object/${ADDRESS}/x`)).text();
    await (await fetch(`${fixture.url}/object/%54${ADDRESS.slice(1)}`)).text();
    expect(fixture.passed).toEqual([
      `GET /object/${ADDRESS}`,
      `DELETE /object/${ADDRESS}`,
      `GET /objects/${ADDRESS}`,
      `GET /object/${ADDRESS}/x`,
      `GET /object/%54${ADDRESS.slice(1)}`,
    ]);
    // Nothing was metered for what the edge did not take.
    expect(fixture.check).not.toHaveBeenCalled();
  });

  it('over the request budget: 429 with the error body, Retry-After and no-store; nothing read', async () => {
    const read = jest.fn();
    fixture = await startEdge({ size: 10, read }, 10, { requests: false });
    const res = await fetch(`${fixture.url}/object/${ADDRESS}`);
    expect(res.status).toBe(429);
    expect(Object.fromEntries(res.headers)).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'retry-after': '30',
      'ratelimit-remaining': '0',
      'x-content-type-options': 'nosniff',
    });
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'too_many_requests',
    );
    expect(read).not.toHaveBeenCalled();
    expect(fixture.enforceBytes).not.toHaveBeenCalled();
  });

  it('over the byte budget: 429, and a prepared stream is released unsent', async () => {
    const parts: Readable[] = [];
    const read = () => {
      const part = Readable.from([Buffer.alloc(10)]);
      parts.push(part);
      return part;
    };
    fixture = await startEdge({ bytes: undefined, size: 100, read }, 100, { bytes: false });
    const res = await fetch(`${fixture.url}/object/${ADDRESS}`, {
      headers: { range: 'bytes=0-9,50-59' },
    });
    expect([res.status, res.headers.get('cache-control')]).toEqual([429, 'no-store']);
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    await res.text();
    expect(parts.length).toBe(1);
    expect(parts[0].destroyed).toBe(true);
  });

  it('a refusal of the service keeps its own headers: 416 with Content-Range, not cached', async () => {
    fixture = await startEdge({ bytes: Buffer.alloc(1000), size: 1000 }, 1000);
    const res = await fetch(`${fixture.url}/object/${ADDRESS}`, {
      headers: { range: 'bytes=5000-' },
    });
    expect([
      res.status,
      res.headers.get('content-range'),
      res.headers.get('cache-control'),
    ]).toEqual([416, 'bytes */1000', 'no-store']);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      'range_not_satisfiable',
    );
  });

  it('a streamed body gets the stall timeout: a client that accepts nothing loses its connection', async () => {
    const read = () => Readable.from([Buffer.alloc(10, 1)]);
    fixture = await startEdge({ bytes: undefined, size: 10, read }, 10);
    const res = await fetch(`${fixture.url}/object/${ADDRESS}`);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(Buffer.alloc(10, 1));
    expect(fixture.timeouts.map(([ms]) => ms)).toEqual([SEND_STALL_MS]);
    const [[, onStall, response]] = fixture.timeouts;
    onStall();
    expect(response.destroyed).toBe(true);
  });

  it('a request body that stops arriving loses its connection while the answer is prepared', async () => {
    // The metering store answers after 2 s; the body's idle limit is 300 ms.
    fixture = await startEdge({ bytes: Buffer.alloc(10), size: 10 }, 10, { requests: 'slow' });
    const socket = connect(Number(new URL(fixture.url).port), '127.0.0.1');
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString()));
    const started = Date.now();
    const closed = new Promise<number>((resolve) =>
      socket.on('close', () => resolve(Date.now() - started)),
    );
    socket.write(`GET /object/${ADDRESS} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab`);
    const after = await closed;
    expect(received).toBe('');
    expect(after).toBeGreaterThanOrEqual(BODY_IDLE_MS - 50);
    expect(after).toBeLessThan(1500);
  });

  it('an answer Node cannot write (a header it refuses) is a 500 error body, its stream released', async () => {
    const body = Readable.from([Buffer.alloc(10)]);
    fixture = await startEdge({ bytes: Buffer.alloc(10), size: 10 }, 10, {}, async () => ({
      status: 200,
      headers: { 'x-broken': 'a\nb' },
      body,
      bytes: 10,
    }));
    const res = await fetch(`${fixture.url}/object/${ADDRESS}`);
    expect([res.status, res.headers.get('cache-control')]).toEqual([500, 'no-store']);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('internal_error');
    expect(body.destroyed).toBe(true);
  });
});
