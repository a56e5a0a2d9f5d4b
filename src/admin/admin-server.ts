import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyListenerTimeouts } from '../http/listener-timeouts';
import { capGatewayListener } from '../http/connection-cap';
import { GatewayConfig } from '../config/app-config';
import { GatewayMetrics } from '../observability/gateway-metrics';
import { RequestObserver } from '../observability/request-observer';
import { TlsAsk } from './tls-ask';

/** Longest admin request target; the only parameter is a host name. */
const MAX_TARGET = 2048;

/**
 * The operator listener (`gateway.admin`, `TAPE_ADMIN_PORT`, loopback by default): Prometheus
 * `/metrics`, `/livez` (the process answers) and `/tls/ask?domain=` for Caddy's on-demand TLS.
 * Never the public port. Started by main.ts (`listen`), so apps built by tests bind nothing.
 */
@Injectable()
export class AdminServer implements OnApplicationShutdown {
  private readonly logger = new Logger('admin');
  private server: Server | undefined;

  constructor(
    private readonly gateway: GatewayConfig,
    private readonly metrics: GatewayMetrics,
    private readonly ask: TlsAsk,
    private readonly observer: RequestObserver,
  ) {}

  /** Binds `gateway.admin.host:port`; port 0 in the config means no admin listener. */
  async listen(): Promise<string | undefined> {
    const { host, port } = this.gateway.admin;
    if (port === 0) return undefined;
    const server = createServer((req, res) => {
      this.observer.start(req);
      res.once('close', () => this.observer.finish('admin', 'admin', req, res));
      this.handle(req, res).catch((err: unknown) => {
        this.logger.error(`admin request failed: ${(err as Error).message}`);
        if (!res.headersSent) send(res, 500, 'internal error\n');
        else res.destroy();
      });
    });
    // The gateway's listener timeouts (gateway.request_timeout_ms, headers_timeout_ms, …).
    applyListenerTimeouts(server, this.gateway);
    capGatewayListener(server, this.gateway, 'admin', (event) => this.logger.warn(event));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    const bound = server.address() as AddressInfo;
    const url = `http://${bound.address.includes(':') ? `[${bound.address}]` : bound.address}:${bound.port}`;
    this.logger.log({ event: 'listening', url });
    return url;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    if (target.length > MAX_TARGET || !target.startsWith('/'))
      return send(res, 400, 'bad request\n');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, 'method not allowed\n');
    const url = new URL(target, 'http://admin.invalid');
    switch (url.pathname) {
      case '/livez':
        return send(res, 200, 'ok\n');
      case '/metrics':
        return send(res, 200, await this.metrics.text(), this.metrics.contentType);
      case '/tls/ask': {
        const answer = await this.ask.ask(url.searchParams.get('domain'));
        return send(res, answer.status, answer.body);
      }
      default:
        return send(res, 404, 'not found\n');
    }
  }
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  type = 'text/plain; charset=utf-8',
): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
