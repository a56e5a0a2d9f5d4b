import { Injectable, Logger } from '@nestjs/common';
import { SiteConfig } from '../config/site.config';
import { preflightHeaders } from './cors';
import { requestPathOf, SiteDirectory } from './site-directory';
import { parseSitePath } from './site-path';
import { policyForPath } from './site-path-policy';
import { SitePolicy } from './site-policy';
import { SiteSnapshot } from './site-snapshots';
import { securityHeaders } from './site-headers';
import { headerList, SiteAnswer, SiteRequest } from './site-answer';
import { PAGES } from './site-pages';
import { SiteResponder } from './site-responder';
import { SiteTarget } from './site-routing';
import { siteOriginResolver } from './path-isolation';
import { requestHeader } from '../http/request-header';
import { selectorKey, VersionSelector } from '../domains/version-selector';

const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
const PRINTABLE = /^[\x21-\x7e]*$/;

/**
 * Answers one request for a site, the same way whether it arrived by path (`/site/{tape}/…`) or by
 * hostname: method, tape status, path mapping, then the responder. It returns the answer (at once
 * when everything is in memory); the site edge writes it. `rawUrl` is the part of the
 * request URL below the site root, still percent-encoded (`/docs/?x=1`); `mount` is what comes
 * before it in the URL the client used (`/site/{tape}`, or empty on a hostname), for redirects.
 * A path route (non-empty mount) is the gateway's origin, shared by every site: its answers are
 * sandboxed, or redirected to the site's own origin (path-isolation.ts).
 */
@Injectable()
export class SiteService {
  private readonly logger = new Logger('site');
  /** The origin a path route redirects to, or null when path routes are sandboxed. */
  private readonly siteOrigin: ((tape: string, hostPrefix?: string) => string | null) | null;

  constructor(
    private readonly directory: SiteDirectory,
    private readonly responder: SiteResponder,
    site: SiteConfig,
  ) {
    this.siteOrigin = siteOriginResolver(site);
  }

  /**
   * With `path_isolation: redirect`, `/site/{tape}{rest}` answers 308 to
   * `<site origin>{rest}` (`/` when rest is empty or a query alone); null otherwise.
   * No lookup: the site's own host answers for a tape that does not exist.
   */
  redirectToSiteOrigin(
    req: SiteRequest,
    tape: string,
    rest: string,
    selector?: VersionSelector,
  ): SiteAnswer | null {
    if (this.siteOrigin === null) return null;
    const origin = this.siteOrigin(tape, selector && selectorKey(selector));
    if (origin === null) return null;
    if (!this.isReadMethod(req.method)) return this.methodNotAllowed();
    const q = rest.indexOf('?');
    const path = q < 0 ? rest : rest.slice(0, q);
    const query = q < 0 ? '' : rest.slice(q);
    // The path goes into Location as the client wrote it (still percent-encoded): printable
    // ASCII only, never a header break; the site's host applies the path rules.
    if (path !== '' && !PRINTABLE.test(path)) return this.responder.page(PAGES.badPath);
    const location = `${origin}${path === '' ? '/' : path}${safeQuery(query)}`;
    return this.responder.redirect(this.directory.gatewayPolicy, location, true);
  }

  /**
   * `selector`: a pinned version or an alias (`@3`, `@pr-12`, `v3--<label>`) instead of the
   * current version; 404 `version_not_kept` when the tape keeps no such version.
   */
  serve(
    req: SiteRequest,
    tape: string,
    rawUrl: string,
    mount: string,
    selector?: VersionSelector,
  ): SiteAnswer | Promise<SiteAnswer> {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') {
      return this.methodNotAllowed();
    }
    // One clock reading for the whole synchronous answer; one more after anything awaited.
    const now = this.directory.now();
    let found: SiteSnapshot | Promise<SiteSnapshot>;
    try {
      // A cold site is read with the names this path needs, in one request.
      found = this.directory.lookup(tape, method === 'OPTIONS' ? undefined : pathOf(rawUrl), now);
    } catch (err) {
      return this.unavailable(tape, err);
    }
    if (found instanceof Promise) {
      return found.then(
        (snapshot) =>
          this.serveSnapshot(req, snapshot, rawUrl, mount, selector, this.directory.now()),
        (err: unknown) => this.unavailable(tape, err),
      );
    }
    return this.serveSnapshot(req, found, rawUrl, mount, selector, now);
  }

  isReadMethod(method: string | undefined): boolean {
    return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
  }

  methodNotAllowed(): SiteAnswer {
    return this.responder.page(PAGES.methodNotAllowed, undefined, { allow: ALLOWED_METHODS });
  }

  /** Something failed that should not have (it is logged by the caller). */
  internalError(): SiteAnswer {
    return this.responder.page(PAGES.internalError);
  }

  /** `/site/{tape}` without the slash: the site root is `/site/{tape}/`, query kept. */
  redirectToRoot(mount: string, query: string): SiteAnswer {
    return this.responder.redirect(
      this.directory.gatewayPolicy,
      `${mount}/${safeQuery(query)}`,
      mount !== '',
    );
  }

  /**
   * A URL refused before any site is looked at: one that cannot be decoded (400), or whose
   * tape segment is longer than any URL the gateway routes (no such site, never cached).
   */
  refusedUrl(reason: 'undecodable' | 'too-long'): SiteAnswer {
    return this.responder.page(reason === 'undecodable' ? PAGES.badPath : PAGES.noSite);
  }

  /** A `@…` or `…--<label>` that can name no version (a malformed number or alias). */
  badVersion(): SiteAnswer {
    return this.responder.page(PAGES.badVersion, undefined, NOINDEX);
  }

  /** A host that names no site, or cannot name one. */
  noSite(invalidHost = false): SiteAnswer {
    if (invalidHost) return this.responder.page(PAGES.badHost);
    return this.responder.page(PAGES.noSite, this.directory.gatewayPolicy);
  }

  private serveSnapshot(
    req: SiteRequest,
    snapshot: SiteSnapshot,
    rawUrl: string,
    mount: string,
    selector: VersionSelector | undefined,
    now: number,
    rechecked = false,
  ): SiteAnswer | Promise<SiteAnswer> {
    if (snapshot.status === 'unknown') {
      return this.responder.page(PAGES.noSite, this.directory.gatewayPolicy);
    }
    if (this.directory.isExpired(snapshot, now)) {
      // Out of time by the cached expiry: read the tape again once, in case it was extended.
      if (snapshot.status === 'active' && !rechecked) {
        return this.directory.recheckExpiry(snapshot).then(
          (fresh) =>
            this.serveSnapshot(req, fresh, rawUrl, mount, selector, this.directory.now(), true),
          (err: unknown) => this.unavailable(snapshot.tape, err),
        );
      }
      return this.responder.page(PAGES.expired, this.directory.gatewayPolicy);
    }
    if (selector === undefined) return this.serveVersion(req, snapshot, rawUrl, mount, now);
    const view = this.directory.view(snapshot, selector);
    if (view === null) return this.responder.page(PAGES.versionNotKept, undefined, NOINDEX);
    if (view instanceof Promise) {
      return view.then(
        (found) => this.serveVersion(req, found, rawUrl, mount, this.directory.now()),
        (err: unknown) => this.unavailable(snapshot.tape, err),
      );
    }
    return this.serveVersion(req, view, rawUrl, mount, now);
  }

  /** An active site's answer from one version's snapshot (the current one, or a view). */
  private serveVersion(
    req: SiteRequest,
    snapshot: SiteSnapshot,
    rawUrl: string,
    mount: string,
    now: number,
  ): SiteAnswer | Promise<SiteAnswer> {
    if (snapshot.rulesRefused !== undefined) {
      return this.responder.page(
        PAGES.badRules,
        undefined,
        snapshot.policy.robots === undefined ? undefined : NOINDEX,
      );
    }
    const policy = snapshot.policy;
    if (req.method === 'OPTIONS') {
      const headers = {
        ...securityHeaders(policy, mount !== ''),
        ...preflightHeaders(policy, {
          origin: requestHeader(req, 'origin'),
          method: requestHeader(req, 'access-control-request-method'),
          headers: requestHeader(req, 'access-control-request-headers'),
        }),
      };
      return { status: 204, headers: headerList(headers), body: null };
    }
    const q = rawUrl.indexOf('?');
    const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const query = q < 0 ? '' : rawUrl.slice(q);
    let target: SiteTarget | Promise<SiteTarget>;
    try {
      target = this.directory.route(snapshot, rawPath, now);
    } catch (err) {
      return this.unavailable(snapshot.tape, err);
    }
    if (target instanceof Promise) {
      return target.then(
        (found) => this.answer(req, snapshot, found, mount, rawPath, query),
        (err: unknown) => this.unavailable(snapshot.tape, err),
      );
    }
    return this.answer(req, snapshot, target, mount, rawPath, query);
  }

  private answer(
    req: SiteRequest,
    snapshot: SiteSnapshot,
    target: SiteTarget,
    mount: string,
    rawPath: string,
    query: string,
  ): SiteAnswer | Promise<SiteAnswer> {
    const policy = this.pathPolicy(snapshot, rawPath);
    switch (target.kind) {
      case 'object':
        return this.responder.object(req, {
          snapshot,
          object: target.object,
          status: target.status,
          download: query !== '' && wantsDownload(query),
          shared: mount !== '',
          policy,
        });
      case 'redirect':
        // A path of the site, under its mount: never another origin or another site.
        return this.responder.redirect(
          policy,
          `${mount}${target.location}${target.location.includes('?') ? '' : safeQuery(query)}`,
          mount !== '',
          target.status,
        );
      case 'status-page':
        return this.responder.page(target.status === 410 ? PAGES.gone : PAGES.legal, policy);
      case 'add-slash':
        return this.responder.redirect(
          policy,
          `${mount}${rawPath}/${safeQuery(query)}`,
          mount !== '',
        );
      case 'not-found':
        // A tape at version 0 is an empty site: program 1.2.0 has no per-file names, so there
        // is nothing to serve until its first version is published (docs/versions.md).
        return this.responder.page(
          snapshot.version === 0 ? PAGES.emptySite : PAGES.notFound,
          policy,
        );
      case 'bad-path':
        // Never cached (a 400), but of the site: a versioned site's says which version.
        return this.responder.page(PAGES.badPath, policy);
    }
  }

  /** The policy of this path: the site's, plus what its `_headers` rules add for it. */
  private pathPolicy(snapshot: SiteSnapshot, rawPath: string): SitePolicy {
    const rules = snapshot.rules;
    if (rules === undefined || rules.headers.length === 0) return snapshot.policy;
    const path = parseSitePath(rawPath);
    if (!path.ok) return snapshot.policy;
    return policyForPath(snapshot.policy, rules, requestPathOf(path), snapshot.pathPolicies);
  }

  private unavailable(tape: string, err: unknown): SiteAnswer {
    this.logger.warn(`site ${tape}: lookup failed: ${(err as Error).message}`);
    return this.responder.page(PAGES.unavailable, undefined, { 'retry-after': '5' });
  }
}

/** Pinned and alias answers are never indexed, their refusals neither. */
const NOINDEX = { 'x-robots-tag': 'noindex' } as const;

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
