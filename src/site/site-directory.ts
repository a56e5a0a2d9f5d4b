import { buildSitePolicy, GatewaySiteDefaults, SitePolicy } from './site-policy';
import {
  MAX_SETTINGS_BYTES,
  parseSiteSettings,
  SETTINGS_FILE,
  SiteOverrides,
} from './site-settings';
import { SiteObject, SiteSource, TapeStatus } from './site-source';

/**
 * Name resolution for sites, cached: per tape, one snapshot of its status, its object list and
 * its policy (gateway settings + `_site.json`). A snapshot is used for at most
 * min(site max-age, name_cache_secs) (at least one second), so a redeploy is live within a
 * minute by default. Lookups of one tape are coalesced: one load in flight per tape whatever
 * the number of requests waiting on it. A hot site is refreshed in the background once 3/4 of
 * its lifetime has passed, so its requests never wait on the chain. When the chain cannot be
 * reached, the last snapshot keeps being served for up to `staleIfErrorSecs` (logged).
 *
 * `lookup` returns the snapshot itself (no promise) on a hit: the hot path stays synchronous.
 */

export type SiteStatus = TapeStatus['kind'];

export interface SiteSnapshot {
  readonly tape: string;
  readonly status: SiteStatus;
  readonly objects: ReadonlyMap<string, SiteObject>;
  readonly policy: SitePolicy;
  /** Clock time at which an active tape's reservation ends. */
  readonly expiresAt: number;
  /**
   * Memo owned by the responder (headers prepared per object, keyed by the object itself for a
   * 200 so a hit hashes no string); dies with the snapshot.
   */
  readonly prepared: Map<unknown, unknown>;
  /** Memo owned by the site service: the answer for a path, keyed by the path as requested. */
  readonly routes: Map<string, unknown>;
}

export interface SiteDirectoryOptions {
  defaults: GatewaySiteDefaults;
  tenantOverrides: boolean;
  allowAnyOrigin: boolean;
  nameCacheSecs: number;
  /** How long "no such tape" is remembered (a tape created a moment later shows up soon). */
  unknownTtlSecs?: number;
  staleIfErrorSecs?: number;
  maxSites?: number;
  /** Milliseconds, monotonic. */
  now: () => number;
  warn: (message: string) => void;
}

interface Entry {
  snapshot: SiteSnapshot;
  fetchedAt: number;
  refreshAt: number;
  freshUntil: number;
  /** Commitment of the `_site.json` whose problems were last logged (log once per version). */
  warnedSettings?: string;
}

const DEFAULT_UNKNOWN_TTL_SECS = 5;
const DEFAULT_STALE_IF_ERROR_SECS = 600;
const DEFAULT_MAX_SITES = 10000;

export class SiteDirectory {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<SiteSnapshot>>();
  private readonly defaultPolicy: SitePolicy;
  private readonly unknownTtlMs: number;
  private readonly staleIfErrorMs: number;
  private readonly maxSites: number;

  constructor(
    private readonly source: SiteSource,
    private readonly options: SiteDirectoryOptions,
  ) {
    this.defaultPolicy = buildSitePolicy(options.defaults, {});
    this.unknownTtlMs = (options.unknownTtlSecs ?? DEFAULT_UNKNOWN_TTL_SECS) * 1000;
    this.staleIfErrorMs = (options.staleIfErrorSecs ?? DEFAULT_STALE_IF_ERROR_SECS) * 1000;
    this.maxSites = options.maxSites ?? DEFAULT_MAX_SITES;
  }

  /** The gateway-wide policy, for answers given before any site is known. */
  get gatewayPolicy(): SitePolicy {
    return this.defaultPolicy;
  }

  lookup(tape: string): SiteSnapshot | Promise<SiteSnapshot> {
    const entry = this.entries.get(tape);
    if (entry !== undefined) {
      const now = this.options.now();
      if (now < entry.freshUntil) {
        if (now >= entry.refreshAt && !this.loading.has(tape)) {
          this.load(tape).catch(() => undefined);
        }
        return entry.snapshot;
      }
    }
    return this.load(tape);
  }

  /** An expired tape is no longer served, from the moment its reservation ends. */
  isExpired(snapshot: SiteSnapshot): boolean {
    return snapshot.status === 'expired' || this.options.now() >= snapshot.expiresAt;
  }

  /**
   * A snapshot whose tape ran out of time while cached may be out of date: the tape may have
   * been extended since it was read. Reads the tape again (coalesced with any load in flight).
   */
  recheckExpiry(snapshot: SiteSnapshot): Promise<SiteSnapshot> {
    return this.load(snapshot.tape);
  }

  /** Forgets a tape (tests, and operators' tools). */
  invalidate(tape: string): void {
    this.entries.delete(tape);
  }

  private load(tape: string): Promise<SiteSnapshot> {
    let pending = this.loading.get(tape);
    if (pending === undefined) {
      pending = this.fetch(tape).finally(() => this.loading.delete(tape));
      this.loading.set(tape, pending);
    }
    return pending;
  }

  private async fetch(tape: string): Promise<SiteSnapshot> {
    const previous = this.entries.get(tape);
    let status: TapeStatus;
    let objects: SiteObject[];
    try {
      [status, objects] = await Promise.all([
        this.source.tapeStatus(tape),
        this.source.listObjects(tape),
      ]);
    } catch (err) {
      const now = this.options.now();
      if (previous && now - previous.fetchedAt < this.staleIfErrorMs) {
        this.options.warn(
          `site ${tape}: cannot refresh (${(err as Error).message}); serving the list from ${Math.round((now - previous.fetchedAt) / 1000)} s ago`,
        );
        previous.freshUntil = Math.min(now + 5000, previous.fetchedAt + this.staleIfErrorMs);
        previous.refreshAt = previous.freshUntil;
        return previous.snapshot;
      }
      throw err;
    }
    const now = this.options.now();
    const byName = new Map<string, SiteObject>();
    if (status.kind === 'active') for (const object of objects) byName.set(object.name, object);
    const settings =
      status.kind === 'active'
        ? await this.settingsOf(tape, byName.get(SETTINGS_FILE), previous)
        : {};
    const policy =
      settings.overrides === undefined
        ? this.defaultPolicy
        : buildSitePolicy(this.options.defaults, settings.overrides);
    const snapshot: SiteSnapshot = {
      tape,
      status: status.kind,
      objects: byName,
      policy,
      expiresAt: status.kind === 'active' ? now + status.expiresInMs : -Infinity,
      prepared: new Map(),
      routes: new Map(),
    };
    const ttlMs = this.ttlMs(status.kind, policy);
    this.remember(tape, {
      snapshot,
      fetchedAt: now,
      // Only sites in use are worth refreshing ahead; an unknown tape is simply asked again.
      refreshAt: status.kind === 'active' ? now + ttlMs * 0.75 : now + ttlMs,
      freshUntil: now + ttlMs,
      warnedSettings: settings.warnedSettings ?? previous?.warnedSettings,
    });
    return snapshot;
  }

  private ttlMs(status: SiteStatus, policy: SitePolicy): number {
    if (status === 'unknown') return this.unknownTtlMs;
    const secs = Math.max(1, Math.min(policy.maxAgeSecs, this.options.nameCacheSecs));
    return secs * 1000;
  }

  private async settingsOf(
    tape: string,
    file: SiteObject | undefined,
    previous: Entry | undefined,
  ): Promise<{ overrides?: SiteOverrides; warnedSettings?: string }> {
    if (!file || !this.options.tenantOverrides) return {};
    const warnings: string[] = [];
    let overrides: SiteOverrides | undefined;
    if (file.size > MAX_SETTINGS_BYTES) {
      warnings.push(
        `${SETTINGS_FILE} is ${file.size} bytes, over the ${MAX_SETTINGS_BYTES}-byte limit: ignored`,
      );
    } else {
      try {
        const parsed = parseSiteSettings(
          await this.source.readWhole(file),
          this.options.allowAnyOrigin,
        );
        overrides = parsed.overrides;
        warnings.push(...parsed.warnings);
      } catch (err) {
        warnings.push(`${SETTINGS_FILE} could not be read (${(err as Error).message}): ignored`);
      }
    }
    if (warnings.length > 0 && previous?.warnedSettings !== file.commitmentHex) {
      for (const warning of warnings) this.options.warn(`site ${tape}: ${warning}`);
      return { overrides, warnedSettings: file.commitmentHex };
    }
    return { overrides };
  }

  private remember(tape: string, entry: Entry): void {
    this.entries.delete(tape);
    this.entries.set(tape, entry);
    if (this.entries.size > this.maxSites) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}
