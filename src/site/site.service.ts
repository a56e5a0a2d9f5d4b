import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { preflightHeaders } from './cors';
import { SiteDirectory, SiteSnapshot } from './site-directory';
import { securityHeaders } from './site-headers';
import { PAGES } from './site-pages';
import { SiteResponder } from './site-responder';
import { routeSitePath, SiteTarget } from './site-routing';

/** Paths remembered per snapshot with their answer, at most (a safety net; see `route`). */
const ROUTE_MEMO_LIMIT = 4096;
const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
const PRINTABLE = /^[\x21-\x7e]*$/;

/**
 * Serves one request for a site, the same way whether it arrived by path (`/site/{tape}/…`) or by
 * hostname: method, tape status, path mapping, then the responder. `rawUrl` is the part of the
 * request URL below the site root, still percent-encoded (`/docs/?x=1`); `mount` is what comes
 * before it in the URL the client used (`/site/{tape}`, or empty on a hostname), for redirects.
 */
@Injectable()
export class SiteService {
  private readonly logger = new Logger('site');

  constructor(
    private readonly directory: SiteDirectory,
    private readonly responder: SiteResponder,
  ) {}

  serve(
    req: FastifyRequest,
    reply: FastifyReply,
    tape: string,
    rawUrl: string,
    mount: string,
  ): void | Promise<void> {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') {
      return this.responder.page(reply, PAGES.methodNotAllowed, undefined, {
        allow: ALLOWED_METHODS,
      });
    }
    let found: SiteSnapshot | Promise<SiteSnapshot>;
    try {
      found = this.directory.lookup(tape);
    } catch (err) {
      return this.unavailable(reply, tape, err);
    }
    if (found instanceof Promise) {
      return found.then(
        (snapshot) => this.serveSnapshot(req, reply, snapshot, rawUrl, mount),
        (err: unknown) => this.unavailable(reply, tape, err),
      );
    }
    return this.serveSnapshot(req, reply, found, rawUrl, mount);
  }

  isReadMethod(method: string): boolean {
    return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
  }

  methodNotAllowed(reply: FastifyReply): void {
    this.responder.page(reply, PAGES.methodNotAllowed, undefined, { allow: ALLOWED_METHODS });
  }

  /** Something failed that should not have (it is logged by the caller). */
  internalError(reply: FastifyReply): void {
    this.responder.page(reply, PAGES.internalError);
  }

  /** `/site/{tape}` without the slash: the site root is `/site/{tape}/`, query kept. */
  redirectToRoot(reply: FastifyReply, mount: string, query: string): void {
    this.responder.redirect(reply, this.directory.gatewayPolicy, `${mount}/${safeQuery(query)}`);
  }

  /** A host that names no site, or cannot name one. */
  noSite(reply: FastifyReply, invalidHost = false): void {
    if (invalidHost) return this.responder.page(reply, PAGES.badHost);
    this.responder.page(reply, PAGES.noSite, this.directory.gatewayPolicy);
  }

  private serveSnapshot(
    req: FastifyRequest,
    reply: FastifyReply,
    snapshot: SiteSnapshot,
    rawUrl: string,
    mount: string,
    rechecked = false,
  ): void | Promise<void> {
    if (snapshot.status === 'unknown') {
      return this.responder.page(reply, PAGES.noSite, this.directory.gatewayPolicy);
    }
    if (this.directory.isExpired(snapshot)) {
      // Out of time by the cached expiry: read the tape again once, in case it was extended.
      if (snapshot.status === 'active' && !rechecked) {
        return this.directory.recheckExpiry(snapshot).then(
          (fresh) => this.serveSnapshot(req, reply, fresh, rawUrl, mount, true),
          (err: unknown) => this.unavailable(reply, snapshot.tape, err),
        );
      }
      return this.responder.page(reply, PAGES.expired, this.directory.gatewayPolicy);
    }
    const policy = snapshot.policy;
    if (req.method === 'OPTIONS') {
      reply.code(204).headers(securityHeaders(policy));
      reply.headers(
        preflightHeaders(policy, {
          origin: header(req, 'origin'),
          method: header(req, 'access-control-request-method'),
          headers: header(req, 'access-control-request-headers'),
        }),
      );
      return void reply.send();
    }
    const q = rawUrl.indexOf('?');
    const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const query = q < 0 ? '' : rawUrl.slice(q);
    const target = this.route(snapshot, rawPath);
    switch (target.kind) {
      case 'object':
        return this.responder.object(req, reply, {
          snapshot,
          object: target.object,
          status: target.status,
          download: query !== '' && wantsDownload(query),
        });
      case 'add-slash':
        return this.responder.redirect(reply, policy, `${mount}${rawPath}/${safeQuery(query)}`);
      case 'not-found':
        return this.responder.page(reply, PAGES.notFound, policy);
      case 'bad-path':
        return this.responder.page(reply, PAGES.badPath);
    }
  }

  /**
   * The answer for a path of a site. Remembered per snapshot only for plain (unencoded) paths
   * that name an object or its directory: their number is bounded by the site's own objects,
   * so random paths (misses, fallbacks) cannot grow memory.
   */
  route(snapshot: SiteSnapshot, rawPath: string): SiteTarget {
    const memo = snapshot.routes.get(rawPath) as SiteTarget | undefined;
    if (memo) return memo;
    const target = routeSitePath(snapshot.objects, snapshot.policy.spaFallback, rawPath);
    const bounded =
      (target.kind === 'add-slash' || (target.kind === 'object' && target.named)) &&
      !rawPath.includes('%');
    if (bounded && snapshot.routes.size < ROUTE_MEMO_LIMIT) snapshot.routes.set(rawPath, target);
    return target;
  }

  private unavailable(reply: FastifyReply, tape: string, err: unknown): void {
    this.logger.warn(`site ${tape}: lookup failed: ${(err as Error).message}`);
    this.responder.page(reply, PAGES.unavailable, undefined, { 'retry-after': '5' });
  }
}

/** `?download=1` among the query parameters (`query` starts with `?`). */
export function wantsDownload(query: string): boolean {
  for (const part of query.slice(1).split('&')) if (part === 'download=1') return true;
  return false;
}

/** A query is carried into Location only when it is plain printable ASCII (it always is from browsers). */
function safeQuery(query: string): string {
  return query.length > 1 && PRINTABLE.test(query) ? query : '';
}

function header(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
