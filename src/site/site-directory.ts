import { PointerAnnouncements } from './pointer-announcements';
import { SiteBatchLoader } from './site-batch-loader';
import { SiteNameCache } from './site-name-cache';
import { INDEX_FILE, NOT_FOUND_FILE, parseSitePath, SiteFilePath } from './site-path';
import {
  DEFAULT_MAX_NAMES,
  DEFAULT_MAX_SITES,
  DEFAULT_STALE_IF_ERROR_SECS,
  DEFAULT_UNKNOWN_TTL_SECS,
  SiteDirectoryOptions,
} from './site-directory-options';
import { SitePolicy } from './site-policy';
import { firstRedirect, RedirectMatch } from '../versions/rules/rules-match';
import { isGatewayFile, namesOfPath, routeSitePath, SiteTarget } from './site-routing';
import { SETTINGS_FILE } from './site-settings';
import { SiteSnapshot, SiteSnapshots } from './site-snapshots';
import { samePointer, SitePointer, SiteRead, SiteSource } from './site-source';
import { VersionSelector } from '../domains/version-selector';

/**
 * Name resolution for sites, cached per name: the gateway never lists a tape. A request reads
 * only the names its path can map to (site-routing.ts), all in one request to the chain, and
 * the answers, hits and misses alike, are kept per (tape, name) (site-name-cache.ts). Per tape a
 * snapshot keeps its status and policy (site-snapshots.ts), read with the first names.
 *
 * Everything is used for at most min(site max-age, name_cache_secs) (at least one second), so a
 * redeploy is live within a minute by default; an unknown tape is asked again after 5 s. Loads
 * are coalesced (site-batch-loader.ts): one in flight per name, and the misses of requests that
 * arrive together go out in one request. A name or site in use is read again in the background
 * once 3/4 of its lifetime has passed, so its requests never wait on the chain. When the chain
 * cannot be reached, what was read keeps being served for up to `staleIfErrorSecs` (logged).
 *
 * A tape with a published version (docs/versions.md) is served from that version instead: its
 * snapshot is its pointer, and its names are cached per root commitment, immutable, so they never
 * need reading again and a request can only ever see names of its snapshot's version. The
 * pointer is refreshed when the chain says it changed (`pointerChanged`, site-freshness.ts).
 *
 * `lookup` and `route` return the answer itself (no promise) on a hit: the hot path stays
 * synchronous.
 */

/** Paths remembered per snapshot with their answer, at most (a safety net; see `route`). */
const ROUTE_MEMO_LIMIT = 4096;
/** A pointer read older than the one announced is read again after this long. */
const STALE_POINTER_RETRY_MS = 100;

type Routed = SiteTarget | Promise<SiteTarget>;

export class SiteDirectory {
  private readonly sites: SiteSnapshots;
  private readonly names: SiteNameCache;
  private readonly loader: SiteBatchLoader;
  /** Loads names of published versions, keyed by root commitment (hex) instead of tape. */
  private readonly versionLoader: SiteBatchLoader;
  private readonly staleIfErrorMs: number;
  private readonly announced = new PointerAnnouncements();

  constructor(
    private readonly source: SiteSource,
    private readonly options: SiteDirectoryOptions,
  ) {
    this.sites = new SiteSnapshots(source, {
      ...options,
      unknownTtlMs: (options.unknownTtlSecs ?? DEFAULT_UNKNOWN_TTL_SECS) * 1000,
      maxSites: options.maxSites ?? DEFAULT_MAX_SITES,
    });
    this.staleIfErrorMs = (options.staleIfErrorSecs ?? DEFAULT_STALE_IF_ERROR_SECS) * 1000;
    this.names = new SiteNameCache(options.maxNames ?? DEFAULT_MAX_NAMES);
    this.loader = new SiteBatchLoader(
      (tape, names, withSite) => this.fetch(tape, names, withSite),
      options.schedule,
    );
    this.versionLoader = new SiteBatchLoader(
      (rootHex, names) => this.fetchVersion(rootHex, names),
      options.schedule,
    );
  }

  /** The gateway-wide policy, for answers given before any site is known. */
  get gatewayPolicy(): SitePolicy {
    return this.sites.defaultPolicy;
  }

  /** The clock, read once per request and handed on: a read costs more than a lookup. */
  now(): number {
    return this.options.now();
  }

  /**
   * The tape's snapshot. When it must be read, the names `rawPath` (the encoded path below the
   * site root, without the query) may need are read in the same request.
   */
  lookup(
    tape: string,
    rawPath?: string,
    now = this.options.now(),
  ): SiteSnapshot | Promise<SiteSnapshot> {
    const entry = this.sites.get(tape);
    if (entry !== undefined && now < entry.freshUntil) {
      if (now >= entry.refreshAt && !this.loader.loadingSite(tape)) {
        this.loader.load(tape, [], true).catch(() => undefined);
      }
      return entry.snapshot;
    }
    // A tape last seen with a version has no names worth reading with its pointer.
    const versioned = entry !== undefined && entry.snapshot.version > 0;
    const names =
      rawPath === undefined || versioned ? [] : this.namesToPrefetch(tape, rawPath, now);
    return this.loader.load(tape, names, true).then(
      () => this.loadedSite(tape),
      (err: Error) => this.loadedSite(tape, err),
    );
  }

  /**
   * The answer for a path of an active site, from its names: synchronous when they are all
   * cached, else after one read of the missing ones. Answers are remembered per snapshot only
   * for plain (unencoded) paths that name an object or its directory: their number is bounded
   * by the site's own objects, so random paths (misses, fallbacks) cannot grow that memo.
   */
  route(snapshot: SiteSnapshot, rawPath: string, now = this.options.now()): Routed {
    const rules = snapshot.rules;
    if (rules === undefined || rules.redirects.length === 0)
      return this.routeFiles(snapshot, rawPath, now);
    const path = parseSitePath(rawPath);
    if (!path.ok) return this.routeFiles(snapshot, rawPath, now);
    const match = firstRedirect(rules, requestPathOf(path));
    if (match === null) return this.routeFiles(snapshot, rawPath, now);
    if (match.rule.force) return this.applyRedirect(snapshot, match);
    // Netlify's shadowing (and IPFS's "no forced redirects"): a file at the path wins.
    const files = this.routeFiles(snapshot, rawPath, now);
    const decide = (target: SiteTarget) =>
      (target.kind === 'object' && target.named) || target.kind === 'add-slash'
        ? target
        : this.applyRedirect(snapshot, match);
    return files instanceof Promise ? files.then(decide) : decide(files);
  }

  /**
   * The answer of a `_redirects` rule: a redirect to a path of the site, or the file its target
   * names under the rule's status (a 200 rewrite, a custom 404/410/451 page). A rewrite whose
   * target is missing is the site's 404; a 410/451 without its page the built-in one.
   */
  private applyRedirect(
    snapshot: SiteSnapshot,
    match: RedirectMatch,
  ): SiteTarget | Promise<SiteTarget> {
    const status = match.rule.status;
    if (status !== 200 && status !== 404 && status !== 410 && status !== 451) {
      return { kind: 'redirect', status, location: match.target };
    }
    const target = parseSitePath(match.target.split(/[?#]/)[0]);
    const wanted = target.ok && !isGatewayFile(target.name) ? [target.name] : [];
    const names = [...wanted, NOT_FOUND_FILE];
    const decide = (): SiteTarget => {
      const owner = namesOwner(snapshot);
      const found = wanted.length > 0 ? this.names.get(owner, wanted[0])?.object : undefined;
      if (found) return { kind: 'object', object: found, status, named: false };
      if (status === 410 || status === 451) return { kind: 'status-page', status };
      const notFound = this.names.get(owner, NOT_FOUND_FILE)?.object;
      return notFound
        ? { kind: 'object', object: notFound, status: 404, named: false }
        : { kind: 'not-found' };
    };
    const owner = namesOwner(snapshot);
    const missing = names.filter((name) => this.names.use(owner, name) === undefined);
    if (missing.length === 0) return decide();
    return this.versionLoader.load(owner, missing, false).then(decide);
  }

  private routeFiles(snapshot: SiteSnapshot, rawPath: string, now: number): Routed {
    const memo = snapshot.routes.get(rawPath);
    if (memo !== undefined && now < memo.refreshAt) return memo.target;
    const path = parseSitePath(rawPath, this.options.wellKnownAllow);
    if (!path.ok)
      return path.hidden ? { kind: 'not-found' } : { kind: 'bad-path', reason: path.reason };
    const names = namesOfPath(path, snapshot.policy.spaFallback);
    const owner = namesOwner(snapshot);
    const missing: string[] = [];
    const ageing: string[] = [];
    for (const name of names) {
      const entry = this.names.use(owner, name);
      if (entry === undefined || now >= entry.freshUntil) missing.push(name);
      else if (now >= entry.refreshAt) ageing.push(name);
    }
    if (missing.length === 0) {
      if (ageing.length > 0) this.loader.load(snapshot.tape, ageing, false).catch(() => undefined);
      return this.decide(snapshot, rawPath, path, names, now);
    }
    const decideLoaded = (error?: Error) => {
      const later = this.options.now();
      for (const name of names) {
        const entry = this.names.get(owner, name);
        if (entry === undefined || (error !== undefined && later >= entry.freshUntil)) {
          throw error ?? new Error(`site ${snapshot.tape}: the name cache is too small`);
        }
      }
      return this.decide(snapshot, rawPath, path, names, later);
    };
    const loader = snapshot.version > 0 ? this.versionLoader : this.loader;
    return loader.load(owner, missing.concat(ageing), false).then(
      () => decideLoaded(),
      (error: Error) => decideLoaded(error),
    );
  }

  /** An expired tape is no longer served, from the moment its reservation ends. */
  isExpired(snapshot: SiteSnapshot, now = this.options.now()): boolean {
    return snapshot.status === 'expired' || now >= snapshot.expiresAt;
  }

  /**
   * A snapshot whose tape ran out of time while cached may be out of date: the tape may have
   * been extended since it was read. Reads the tape again (coalesced with any load in flight).
   */
  recheckExpiry(snapshot: SiteSnapshot): Promise<SiteSnapshot> {
    return this.loader.load(snapshot.tape, [], true).then(
      () => this.loadedSite(snapshot.tape),
      (err: Error) => this.loadedSite(snapshot.tape, err),
    );
  }

  /** Forgets a tape and its names (tests, and operators' tools). */
  invalidate(tape: string): void {
    this.sites.forget(tape);
    this.names.forget(tape);
  }

  /** Tapes with a snapshot in memory: those whose pointers are worth watching. */
  cachedTapes(): string[] {
    return this.sites.tapes();
  }

  /**
   * The chain says the tape's pointer is now `pointer` (a notification, or a poll). A snapshot
   * of another pointer (another sequence: a Publish, a rollback, an alias change; or a tape
   * that did not exist) is forgotten at once and read again in
   * the background, so the next request is served the new version. A read that still returns an
   * older version (an RPC node behind its notifications) is repeated until it does not.
   */
  pointerChanged(tape: string, pointer: SitePointer): void {
    const entry = this.sites.get(tape);
    if (entry === undefined) return;
    const snapshot = entry.snapshot;
    if (snapshot.status !== 'unknown' && samePointer(snapshot.pointer, pointer)) return;
    this.announced.announce(tape, pointer.sequence);
    this.reload(tape);
  }

  /**
   * The snapshot of another kept version of an active tape's snapshot (`@<n>`, `@<alias>`):
   * null when the tape keeps no such version. Its names are its root's, shared with every
   * snapshot of that root (immutable).
   */
  view(
    snapshot: SiteSnapshot,
    selector: VersionSelector,
  ): SiteSnapshot | Promise<SiteSnapshot> | null {
    return this.sites.view(snapshot, selector);
  }

  /** Forgets the tape's snapshot and reads it again in the background (its names stay). */
  private reload(tape: string): void {
    this.sites.forget(tape);
    this.loader.load(tape, [], true).catch(() => undefined);
  }

  private decide(
    snapshot: SiteSnapshot,
    rawPath: string,
    path: SiteFilePath,
    names: string[],
    now: number,
  ): SiteTarget {
    const owner = namesOwner(snapshot);
    let refreshAt = Infinity;
    for (const name of names) {
      refreshAt = Math.min(refreshAt, this.names.get(owner, name)?.refreshAt ?? -Infinity);
    }
    const target = routeSitePath(
      (name) => this.names.get(owner, name)?.object ?? undefined,
      snapshot.policy.spaFallback,
      path,
    );
    const bounded =
      (target.kind === 'add-slash' || (target.kind === 'object' && target.named)) &&
      !rawPath.includes('%');
    if (bounded && now < refreshAt && snapshot.routes.size < ROUTE_MEMO_LIMIT) {
      snapshot.routes.set(rawPath, { target, refreshAt });
    }
    return target;
  }

  /** The names a cold path may need, whatever `_site.json` says (fallback included). */
  private namesToPrefetch(tape: string, rawPath: string, now: number): string[] {
    const path = parseSitePath(rawPath, this.options.wellKnownAllow);
    if (!path.ok) return [];
    return namesOfPath(path, true).filter((name) => {
      const entry = this.names.get(tape, name);
      return entry === undefined || now >= entry.refreshAt;
    });
  }

  private loadedSite(tape: string, error?: Error): SiteSnapshot {
    const entry = this.sites.get(tape);
    if (entry === undefined || (error !== undefined && this.options.now() >= entry.freshUntil)) {
      throw error ?? new Error(`site ${tape}: not loaded`);
    }
    return entry.snapshot;
  }

  /** One request to the chain: the tape and `_site.json` (with `withSite`), and the names. */
  private async fetch(tape: string, names: string[], withSite: boolean): Promise<void> {
    const withSettings = withSite && this.options.tenantOverrides;
    let read: SiteRead;
    try {
      read = await this.source.read(
        tape,
        withSettings ? [SETTINGS_FILE, ...names] : names,
        withSite,
      );
    } catch (err) {
      this.keepStale(tape, names, withSite, err);
      throw err;
    }
    const objects = withSettings ? read.objects.slice(1) : read.objects;
    let snapshot = this.sites.get(tape)?.snapshot;
    if (withSite) {
      const settings = withSettings ? (read.objects[0] ?? undefined) : undefined;
      snapshot = await this.sites.store(
        tape,
        read.status ?? { kind: 'unknown' },
        settings,
        read.pointer,
      );
      if (this.announced.behind(tape, snapshot.pointer.sequence)) {
        setTimeout(() => this.reload(tape), STALE_POINTER_RETRY_MS).unref();
      }
    }
    // Names live as long as their site's answers (an unknown tape's misses only 5 s: it may be
    // created in a moment).
    const ttlMs = this.sites.ttlMs(
      snapshot?.status ?? 'active',
      snapshot?.policy ?? this.sites.defaultPolicy,
    );
    const now = this.options.now();
    names.forEach((name, i) => this.names.set(tape, name, objects[i], now, ttlMs));
  }

  /**
   * Names of a published version: immutable, so kept until the cache needs the room. A failed
   * read stores nothing (the request is answered 503; the next one tries again).
   */
  private async fetchVersion(rootHex: string, names: string[]): Promise<void> {
    const objects = await this.source.readVersion(Buffer.from(rootHex, 'hex'), names);
    const now = this.options.now();
    names.forEach((name, i) => this.names.set(rootHex, name, objects[i], now, Infinity));
  }

  /** After a failed read: what was read recently enough is served a little longer (logged). */
  private keepStale(tape: string, names: string[], withSite: boolean, err: unknown): void {
    const now = this.options.now();
    let kept = 0;
    let oldestAt = now;
    if (withSite && this.sites.keepStale(tape, now, this.staleIfErrorMs)) {
      kept++;
      oldestAt = this.sites.get(tape)!.fetchedAt;
    }
    for (const name of names) {
      if (this.names.keepStale(tape, name, now, this.staleIfErrorMs)) {
        kept++;
        oldestAt = Math.min(oldestAt, this.names.get(tape, name)!.fetchedAt);
      }
    }
    if (kept > 0) {
      this.options.warn(
        `site ${tape}: cannot refresh (${(err as Error).message}); serving what was read ${Math.round((now - oldestAt) / 1000)} s ago`,
      );
    }
  }
}

/**
 * Whose names a snapshot reads: the tape's (its Name accounts, refreshed by age) or, for a
 * published version, its root's (immutable). A root in hex is 64 characters, a tape address at
 * most 44: the two never share a key.
 */
function namesOwner(snapshot: SiteSnapshot): string {
  return snapshot.version > 0 ? snapshot.rootHex : snapshot.tape;
}

/** The decoded request path below the site root, as rules match it (`/docs/` for `docs/index.html`). */
export function requestPathOf(path: SiteFilePath): string {
  return `/${path.directory ? path.name.slice(0, -INDEX_FILE.length) : path.name}`;
}
