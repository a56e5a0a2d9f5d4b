import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { GatewayConfig } from '../config/app-config';
import { MeteringConfig } from '../config/metering.config';
import { ClientIpResolver } from '../http/client-ip';
import { AccessLogEntry, AccessLog } from './access-log';
import { GatewayMetrics } from './gateway-metrics';
import { RequestObserver } from './request-observer';
import type { RouteKind } from './route-kind';
import { eventually } from '../../test/support/jest/eventually';

interface Observed {
  kind: RouteKind;
  status: number;
  seconds: number;
  bytes: number;
}

/** A node:http server whose listener is `answer` wrapped by a RequestObserver. */
async function observedServer(
  answer: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; url: string; observed: Observed[]; logged: AccessLogEntry[] }> {
  const observed: Observed[] = [];
  const logged: AccessLogEntry[] = [];
  const metrics = {
    observe: (_l: string, kind: RouteKind, status: number, seconds: number, bytes: number) =>
      observed.push({ kind, status, seconds, bytes }),
  } as unknown as GatewayMetrics;
  const log = new AccessLog(
    Object.assign(new GatewayConfig(), { access_log: true, access_log_sample: 1 }),
  );
  jest.spyOn(log, 'write').mockImplementation((entry) => void logged.push(entry));
  const observer = new RequestObserver(
    metrics,
    log,
    ClientIpResolver.fromConfig(new MeteringConfig()),
  );
  const server = createServer(
    observer.wrap('main', answer, (req) => (req.url?.startsWith('/site/') ? 'site' : 'other')),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, observed, logged };
}

describe('RequestObserver.wrap', () => {
  let server: Server | undefined;
  afterEach(async () => {
    jest.restoreAllMocks();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  it('counts an answer ended inside the listener at once, with its bytes, adding no listener', async () => {
    const body = 'x'.repeat(1000);
    let closeListeners = -1;
    const s = await observedServer((_req, res) => {
      res.writeHead(200, ['content-type', 'text/plain']);
      res.end(body);
      // Read after the wrapper returns: the wrapper runs after this listener.
      setImmediate(() => (closeListeners = res.listenerCount('close')));
    });
    server = s.server;
    const res = await fetch(`${s.url}/site/page?q=1`);
    expect(await res.text()).toBe(body);
    await eventually('the listener count read', () => closeListeners >= 0);
    expect(s.observed).toHaveLength(1);
    expect(s.observed[0]).toMatchObject({ kind: 'site', status: 200 });
    // The head and the body, as the socket counted them.
    expect(s.observed[0].bytes).toBeGreaterThan(body.length);
    expect(s.observed[0].seconds).toBeGreaterThanOrEqual(0);
    expect(s.logged[0]).toMatchObject({ url: '/site/page?q=1', status: 200, kind: 'site' });
    expect(closeListeners).toBe(0);
  });

  it('counts an answer ended later when its response closes, with the target as received', async () => {
    const s = await observedServer((req, res) => {
      req.url = '/rewritten';
      setTimeout(() => {
        res.writeHead(404);
        res.end('gone');
      }, 30);
    });
    server = s.server;
    const res = await fetch(`${s.url}/site/late`);
    expect(res.status).toBe(404);
    await eventually('the answer counted', () => s.observed.length > 0);
    expect(s.observed).toHaveLength(1);
    expect(s.observed[0]).toMatchObject({ kind: 'other', status: 404 });
    expect(s.observed[0].bytes).toBeGreaterThan(4);
    // Timed from the start of the request: the answer waited 30 ms.
    expect(s.observed[0].seconds).toBeGreaterThanOrEqual(0.025);
    expect(s.logged[0]).toMatchObject({ url: '/site/late', status: 404 });
  });

  it('counts a pipelined answer queued behind a slower one with its own bytes, once sent', async () => {
    const s = await observedServer((req, res) => {
      const answer = () => {
        res.writeHead(200, ['content-type', 'text/plain']);
        res.end(req.url === '/site/slow' ? 'slow' : 'q'.repeat(500));
      };
      if (req.url === '/site/slow') setTimeout(answer, 30);
      else answer();
    });
    server = s.server;
    const { port } = s.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.write(
      'GET /site/slow HTTP/1.1\r\nHost: a\r\n\r\nGET /site/fast HTTP/1.1\r\nHost: a\r\n\r\n',
    );
    const answers = () => received.match(/HTTP\/1\.1 200/g)?.length ?? 0;
    await eventually('both answers counted', () => s.observed.length === 2 && answers() === 2);
    socket.destroy();
    expect(answers()).toBe(2);
    const fast = s.logged.find((entry) => entry.url === '/site/fast');
    // Its head and its 500-byte body, not the 0 bytes on the socket when it was ended.
    expect(fast?.bytes).toBeGreaterThan(500);
  });

  it('counts a response destroyed inside the listener once', async () => {
    const s = await observedServer((_req, res) => {
      res.destroy();
    });
    server = s.server;
    // The client sees the connection closed with no answer (undici's socket error).
    await expect(fetch(`${s.url}/site/cut`)).rejects.toMatchObject({
      cause: { code: 'UND_ERR_SOCKET' },
    });
    await eventually('the cut answer counted', () => s.observed.length > 0);
    await new Promise((r) => setTimeout(r, 50)); // and not counted again
    expect(s.observed).toHaveLength(1);
    expect(s.observed[0].kind).toBe('site');
  });
});
