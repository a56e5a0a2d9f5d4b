import type { HttpAdapterHost } from '@nestjs/core';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { EdgeRoute, MainListener, RequestListener, SiteHostEdge } from './main-listener';
import { ListenerDrain } from './listener-drain';
import { ShutdownSignal } from './shutdown-signal';

/** Who answered each request, in order: a peer's name, or `fastify` with the URL it got. */
type Log = string[];

const SITE_HOST = 'site.example';

function siteHosts(log: Log): SiteHostEdge {
  return {
    ownsHost: (host) => host === SITE_HOST,
    tryServe: (req, _res, url) => {
      if (req.headers.host !== SITE_HOST) return false;
      log.push(`site-host ${url}`);
      return true;
    },
  };
}

function route(log: Log, name: string, takes = true): EdgeRoute {
  return {
    tryServe: (_req, _res, url) => {
      if (takes) log.push(`${name} ${url}`);
      return takes;
    },
  };
}

/** A server whose one listener stands for Fastify, the main listener installed in front. */
function setUp(register: (listener: MainListener, log: Log) => void): {
  listener: MainListener;
  shutdown: ShutdownSignal;
  server: Server;
  send: (url: string, host?: string) => Log;
} {
  const log: Log = [];
  const server = createServer((req) => log.push(`fastify ${req.url} ${req.headers.host}`));
  const adapterHost = { httpAdapter: { getHttpServer: () => server } };
  const shutdown = new ShutdownSignal();
  const listener = new MainListener(
    adapterHost as unknown as HttpAdapterHost,
    shutdown,
    new ListenerDrain(),
  );
  register(listener, log);
  listener.onApplicationBootstrap();
  const send = (url: string, host = 'localhost'): Log => {
    const [installed] = server.listeners('request') as RequestListener[];
    log.length = 0;
    const req = { url, headers: { host }, method: 'GET' } as unknown as IncomingMessage;
    const res = {
      writeHead(code: number, headers: Record<string, string>) {
        log.push(`answer ${code} ${headers.connection}`);
      },
      end: () => undefined,
    };
    installed.call(server, req, res as unknown as ServerResponse);
    return [...log];
  };
  return { listener, shutdown, server, send };
}

/** Writes `request` on a new connection; resolves with all it read once the server closes it. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.setEncoding('latin1');
    socket.setTimeout(5000, () => socket.destroy(new Error('the connection stayed open')));
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(data));
  });
}

describe('MainListener', () => {
  it('dispatches in a fixed order: site hosts, then edge routes by prefix, then Fastify', () => {
    const { send } = setUp((listener, log) => {
      listener.addRoute('/site/', route(log, 'site-path'));
      listener.addRoute('/object/', route(log, 'object'));
      listener.serveSiteHosts(siteHosts(log));
    });
    expect(send('/object/x', SITE_HOST)).toEqual(['site-host /object/x']);
    expect(send('/site/T/a')).toEqual(['site-path /site/T/a']);
    expect(send('/object/x')).toEqual(['object /object/x']);
    expect(send('/objects/x')).toEqual(['fastify /objects/x localhost']);
    expect(send('/healthz')).toEqual(['fastify /healthz localhost']);
  });

  it('tries the next route, then Fastify, when a route declines', () => {
    const { send } = setUp((listener, log) => {
      listener.addRoute('/object/', route(log, 'cold', false));
      listener.addRoute('/object/', route(log, 'second'));
      listener.addRoute('/upload/', route(log, 'never', false));
    });
    expect(send('/object/x')).toEqual(['second /object/x']);
    expect(send('/upload/x')).toEqual(['fastify /upload/x localhost']);
  });

  it('makes an absolute-form target origin-form first; one it cannot goes on to Fastify as sent', () => {
    const { send } = setUp((listener, log) => listener.serveSiteHosts(siteHosts(log)));
    expect(send(`http://${SITE_HOST}/healthz`, SITE_HOST)).toEqual(['site-host /healthz']);
    expect(send('http://localhost/healthz')).toEqual(['fastify /healthz localhost']);
    // The authority differs from the Host: refused by Fastify's rewrite, never a site request.
    expect(send('http://localhost/x', SITE_HOST)).toEqual([
      `fastify http://localhost/x ${SITE_HOST}`,
    ]);
  });

  it('answers every request 503 itself once shutdown has begun: no edge, no Fastify', () => {
    const { shutdown, send } = setUp((l, log) => {
      l.serveSiteHosts(siteHosts(log));
      l.addRoute('/object/', route(log, 'object'));
    });
    expect(send('/object/x')).toEqual(['object /object/x']);
    shutdown.begin();
    const shuttingDown = ['answer 503 close'];
    expect(send('/', SITE_HOST)).toEqual(shuttingDown);
    expect(send(`http://${SITE_HOST}/healthz`, SITE_HOST)).toEqual(shuttingDown);
    expect(send('/object/x')).toEqual(shuttingDown);
    expect(send('/healthz')).toEqual(shuttingDown);
    expect(send('http://localhost/x', SITE_HOST)).toEqual(shuttingDown);
  });

  it('closes itself when its module is destroyed, for an app closed without the shutdown signal', () => {
    const { listener, send } = setUp((l, log) => l.serveSiteHosts(siteHosts(log)));
    expect(send('/', SITE_HOST)).toEqual(['site-host /']);
    listener.onModuleDestroy();
    expect(send('/', SITE_HOST)).toEqual(['answer 503 close']);
  });

  it('writes the shutdown answer on the wire: 503, Retry-After, a plain body, connection closed', async () => {
    const { shutdown, server } = setUp(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      shutdown.begin();
      const answer = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      const [head, body] = answer.split('\r\n\r\n');
      expect(head.split('\r\n')[0]).toBe('HTTP/1.1 503 Service Unavailable');
      expect(head).toMatch(/\r\nretry-after: 5\r\n/i);
      expect(head).toMatch(/\r\nconnection: close\r\n/i);
      expect(head).toMatch(/\r\ncontent-type: text\/plain; charset=utf-8\r\n/i);
      expect(head).toMatch(/\r\ncache-control: no-store\r\n/i);
      expect(body).toBe('the gateway is shutting down: retry shortly\n');
    } finally {
      server.close();
    }
  });

  it('wraps the whole dispatch with its observer, and answers who owns a Host', () => {
    const seen: string[] = [];
    const { listener, send } = setUp((l, log) => {
      l.serveSiteHosts(siteHosts(log));
      l.observeWith((dispatch) => (req, res) => {
        seen.push(`before ${req.url}`);
        dispatch(req, res);
        seen.push(`after ${req.url}`);
      });
    });
    expect(send('http://localhost/a')).toEqual(['fastify /a localhost']);
    expect(send('/b', SITE_HOST)).toEqual(['site-host /b']);
    // The observer sees the target as sent, and the origin-form one once it is answered.
    expect(seen).toEqual(['before http://localhost/a', 'after /a', 'before /b', 'after /b']);
    expect([listener.isSiteHost(SITE_HOST), listener.isSiteHost('localhost')]).toEqual([
      true,
      false,
    ]);
  });

  it('is the only request listener: refuses a server with another, and late registrations', () => {
    const server = createServer(() => undefined);
    server.on('request', () => undefined);
    const listener = new MainListener(
      {} as HttpAdapterHost,
      new ShutdownSignal(),
      new ListenerDrain(),
    );
    expect(() => listener.install(server)).toThrow(
      'the main listener cannot be installed (2 request listeners)',
    );
    const { listener: installed, server: one } = setUp(() => undefined);
    expect(one.listeners('request')).toHaveLength(1);
    expect(() => installed.addRoute('/late/', route([], 'late'))).toThrow(
      'the edge route /late/ registered after the main listener was installed',
    );
  });

  it('registers its server with the listener drain when installed, as "main"', () => {
    const server = createServer(() => undefined);
    const drain = new ListenerDrain();
    const register = jest.spyOn(drain, 'register');
    const listener = new MainListener(
      { httpAdapter: { getHttpServer: () => server } } as unknown as HttpAdapterHost,
      new ShutdownSignal(),
      drain,
    );
    expect(register).not.toHaveBeenCalled();
    listener.onApplicationBootstrap();
    expect(register.mock.calls).toEqual([['main', server]]);
  });

  it('installs nothing without an HTTP server (an application context, the CLI)', () => {
    const listener = new MainListener(
      { httpAdapter: undefined } as unknown as HttpAdapterHost,
      new ShutdownSignal(),
      new ListenerDrain(),
    );
    expect(() => listener.onApplicationBootstrap()).not.toThrow();
    expect(() => listener.serveSiteHosts(siteHosts([]))).not.toThrow();
    expect(() => listener.serveSiteHosts(siteHosts([]))).toThrow('a site host edge already');
  });
});
