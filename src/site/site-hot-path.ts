import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { errorBody } from '../common/error-body';
import { HostRouter } from '../domains/host-router';
import { MeterDecision } from '../metering/meter-decision';
import { MeteringService } from '../metering/metering.service';
import { appendRateLimitHeaders } from '../metering/rate-limit-headers';
import { ifNoneMatchMatches } from '../tracks/conditional-request';
import { Coding, negotiateCoding } from './content-coding';
import { SiteBodyCache } from './site-body-cache';
import { SiteDirectory } from './site-directory';
import { RepresentationHeaders } from './site-headers';
import { SiteResponder } from './site-responder';
import { wantsDownload } from './site.service';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Answers the hottest site requests (a GET or HEAD on a hostname route whose host, site, path,
 * headers and body are all in memory) straight from the HTTP server, before Fastify and Nest
 * see them; everything else goes on to Fastify unchanged. Measured on a 4 KiB page, Nest's
 * per-request hooks and Fastify's routing cost about as much as the page itself; here a hit is
 * a few map lookups and one write.
 *
 * A hit gives the same answer as the site routes: the prepared headers of the same snapshot and
 * object, 304 on a matching If-None-Match, the body from the same verified cache, metered the
 * same way (`site` budget, RateLimit headers, 429 over budget). Anything the hot path does not
 * know how to answer or does not have at hand falls through: ranges, cross-origin requests
 * (Origin), downloads, redirects, missing pages, sites or bodies not loaded yet, TXT-bound
 * hosts, other methods.
 *
 * Installation: the Node server's one `request` listener (Fastify's) is wrapped once the app is
 * bootstrapped; when the server does not look as expected, nothing is installed (logged) and
 * every request takes the normal route. During shutdown the hot path steps aside, so Fastify's
 * closing behaviour (503 on new requests) applies.
 */
@Injectable()
export class SiteHotPath implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('site');
  private closing = false;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly hosts: HostRouter,
    private readonly directory: SiteDirectory,
    private readonly responder: SiteResponder,
    private readonly bodies: SiteBodyCache,
    private readonly metering: MeteringService,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    const listeners = server?.listeners('request') ?? [];
    if (!server || listeners.length !== 1) {
      this.logger.warn(`site hot path not installed (${listeners.length} request listeners)`);
      return;
    }
    const next = listeners[0] as RequestListener;
    server.removeListener('request', next);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (!this.tryServe(req, res)) next.call(server, req, res);
    });
  }

  beforeApplicationShutdown(): void {
    this.closing = true;
  }

  /** Serves the request when it is a hit; false leaves it untouched for Fastify. */
  tryServe(req: IncomingMessage, res: ServerResponse): boolean {
    const method = req.method;
    if ((method !== 'GET' && method !== 'HEAD') || this.closing) return false;
    const headers = req.headers;
    const host = headers.host;
    const url = req.url;
    if (host === undefined || url === undefined || url.charCodeAt(0) !== 47 /* / */) return false;
    if (headers.range !== undefined || headers.origin !== undefined) return false;
    if (headers[':authority'] !== undefined) return false;
    const route = this.hosts.route(host);
    if (route.kind !== 'site') return false;
    const resolution = route.resolution;
    if (resolution.kind !== 'tape') return false;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    // A miss starts the read (with the names of this path) that the site route then waits for.
    const snapshot = this.directory.lookup(resolution.tape, path);
    if (snapshot instanceof Promise) return settledLater(snapshot);
    if (snapshot.status !== 'active' || this.directory.isExpired(snapshot)) return false;
    if (q >= 0 && wantsDownload(url.slice(q))) return false;
    const target = this.directory.route(snapshot, path);
    if (target instanceof Promise) return settledLater(target);
    if (target.kind !== 'object') return false;
    const p = this.responder.prepared({
      snapshot,
      object: target.object,
      status: target.status,
      shared: false,
    });

    let coding: Coding | null = null;
    let rep: RepresentationHeaders = p.identity;
    if (p.compressible) {
      coding = negotiateCoding(headers['accept-encoding']);
      if (coding !== null) {
        const variant = p.variants[coding];
        if (variant === undefined) return false;
        if (variant === false) coding = null;
        else rep = variant;
      }
    }
    const notModified =
      target.status === 200 && ifNoneMatchMatches(headers['if-none-match'], rep.etag);
    let body: Buffer | undefined;
    if (!notModified && method === 'GET') {
      body =
        coding === null
          ? this.bodies.getIdentity(p.object)
          : this.bodies.getVariant(p.object, coding);
      if (body === undefined) return false;
    }

    const status = notModified ? 304 : target.status;
    const raw = notModified ? rep.rawNotModified : rep.rawFull;
    const decision = this.metering.meterRequest(req, 'site');
    if (decision instanceof Promise) {
      decision.then(
        (d) => this.write(res, d, status, raw, body),
        (err: unknown) => this.fail(res, err),
      );
    } else {
      this.write(res, decision, status, raw, body);
    }
    return true;
  }

  private write(
    res: ServerResponse,
    decision: MeterDecision,
    status: number,
    prepared: readonly string[],
    body: Buffer | undefined,
  ): void {
    try {
      if (!decision.allowed) {
        const refusal = Buffer.from(JSON.stringify(this.metering.refusal(decision).getResponse()));
        const refused = ['content-type', 'application/json; charset=utf-8'];
        appendRateLimitHeaders(refused, decision);
        refused.push('content-length', String(refusal.length));
        res.writeHead(429, refused);
        res.end(refusal);
        return;
      }
      const headers = prepared.slice();
      appendRateLimitHeaders(headers, decision);
      res.writeHead(status, headers);
      res.end(body);
    } catch (err) {
      this.fail(res, err);
    }
  }

  private fail(res: ServerResponse, err: unknown): void {
    this.logger.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const body = JSON.stringify(errorBody('internal_error', 'internal error'));
    res.writeHead(500, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    });
    res.end(body);
  }
}

/** Not a hit: the load it started is the site route's to wait for (and to report). */
function settledLater(pending: Promise<unknown>): false {
  pending.catch(() => undefined);
  return false;
}
