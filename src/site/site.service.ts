import { Injectable, Logger } from '@nestjs/common';
import { SiteConfig } from '../config/site.config';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { preflightHeaders } from './cors';
import { SiteDirectory } from './site-directory';
import { SiteSnapshot } from './site-snapshots';
import { securityHeaders } from './site-headers';
import { PAGES } from './site-pages';
import { SiteResponder } from './site-responder';
import { SiteTarget } from './site-routing';
import { siteOriginResolver } from './path-isolation';

const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
const PRINTABLE = /^[\x21-\x7e]*$/;

/**
 * Serves one request for a site, the same way whether it arrived by path (`/site/{tape}/…`) or by
 * hostname: method, tape status, path mapping, then the responder. `rawUrl` is the part of the
 * request URL below the site root, still percent-encoded (`/docs/?x=1`); `mount` is what comes
 * before it in the URL the client used (`/site/{tape}`, or empty on a hostname), for redirects.
 * A path route (non-empty mount) is the gateway's origin, shared by every site: its answers are
 * sandboxed, or redirected to the site's own origin (path-isolation.ts).
 */
@Injectable()
export class SiteService {
  private readonly logger = new Logger('site');
  /** The origin a path route redirects to, or null when path routes are sandboxed. */
  private readonly siteOrigin: ((tape: string) => string) | null;

  constructor(
    private readonly directory: SiteDirectory,
    private readonly responder: SiteResponder,
    site: SiteConfig,
  ) {
    this.siteOrigin = siteOriginResolver(site);
  }

  /**
   * With `path_isolation: redirect`, `/site/{tape}{rest}` answers 308 to
   * `<site origin>{rest}` (`/` when rest is empty or a query alone) and true; false otherwise.
   * No lookup: the site's own host answers for a tape that does not exist.
   */
  redirectToSiteOrigin(
    req: { method: string },
    reply: FastifyReply,
    tape: string,
    rest: string,
  ): boolean {
    if (this.siteOrigin === null) return false;
    if (!this.isReadMethod(req.method)) {
      this.methodNotAllowed(reply);
      return true;
    }
    const q = rest.indexOf('?');
    const path = q < 0 ? rest : rest.slice(0, q);
    const query = q < 0 ? '' : rest.slice(q);
    // The path goes into Location as the client wrote it (still percent-encoded): printable
    // ASCII only, never a header break; the site's host applies the path rules.
    if (path !== '' && !PRINTABLE.test(path)) {
      this.responder.page(reply, PAGES.badPath);
      return true;
    }
    const location = `${this.siteOrigin(tape)}${path === '' ? '/' : path}${safeQuery(query)}`;
    this.responder.redirect(reply, this.directory.gatewayPolicy, location, true);
    return true;
  }

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
      // A cold site is read with the names this path needs, in one request.
      found = this.directory.lookup(tape, method === 'OPTIONS' ? undefined : pathOf(rawUrl));
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
    this.responder.redirect(
      reply,
      this.directory.gatewayPolicy,
      `${mount}/${safeQuery(query)}`,
      mount !== '',
    );
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
      reply.code(204).headers(securityHeaders(policy, mount !== ''));
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
    let target: SiteTarget | Promise<SiteTarget>;
    try {
      target = this.directory.route(snapshot, rawPath);
    } catch (err) {
      return this.unavailable(reply, snapshot.tape, err);
    }
    if (target instanceof Promise) {
      return target.then(
        (found) => this.answer(req, reply, snapshot, found, mount, rawPath, query),
        (err: unknown) => this.unavailable(reply, snapshot.tape, err),
      );
    }
    return this.answer(req, reply, snapshot, target, mount, rawPath, query);
  }

  private answer(
    req: FastifyRequest,
    reply: FastifyReply,
    snapshot: SiteSnapshot,
    target: SiteTarget,
    mount: string,
    rawPath: string,
    query: string,
  ): void | Promise<void> {
    const policy = snapshot.policy;
    switch (target.kind) {
      case 'object':
        return this.responder.object(req, reply, {
          snapshot,
          object: target.object,
          status: target.status,
          download: query !== '' && wantsDownload(query),
          shared: mount !== '',
        });
      case 'add-slash':
        return this.responder.redirect(
          reply,
          policy,
          `${mount}${rawPath}/${safeQuery(query)}`,
          mount !== '',
        );
      case 'not-found':
        return this.responder.page(reply, PAGES.notFound, policy);
      case 'bad-path':
        return this.responder.page(reply, PAGES.badPath);
    }
  }

  private unavailable(reply: FastifyReply, tape: string, err: unknown): void {
    this.logger.warn(`site ${tape}: lookup failed: ${(err as Error).message}`);
    this.responder.page(reply, PAGES.unavailable, undefined, { 'retry-after': '5' });
  }
}

/** The path part of a URL below the site root (`/docs/?x=1` -> `/docs/`). */
function pathOf(rawUrl: string): string {
  const q = rawUrl.indexOf('?');
  return q < 0 ? rawUrl : rawUrl.slice(0, q);
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
