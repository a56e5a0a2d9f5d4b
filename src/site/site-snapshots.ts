import {
  buildSitePolicy,
  GatewaySiteDefaults,
  IMMUTABLE_CACHE_CONTROL,
  SitePolicy,
} from './site-policy';
import { SiteTarget } from './site-routing';
import {
  MAX_SETTINGS_BYTES,
  parseSiteSettings,
  SETTINGS_FILE,
  SiteOverrides,
} from './site-settings';
import {
  KeptRoot,
  NO_VERSION,
  SiteObject,
  SitePointer,
  SiteSource,
  selectVersion,
  TapeStatus,
} from './site-source';
import { selectorKey, VersionSelector } from '../domains/version-selector';

export type SiteStatus = TapeStatus['kind'];

/**
 * What is known about one tape as a site, between two reads of it. A snapshot *is* a pointer:
 * everything memoised in it (routes, prepared headers) and every name it reads belongs to its
 * one version, so no answer mixes two versions.
 */
export interface SiteSnapshot {
  readonly tape: string;
  readonly status: SiteStatus;
  readonly policy: SitePolicy;
  /** The published version served (0: none yet, an empty site). */
  readonly version: number;
  /** The tape's pointer this snapshot was read with: its kept versions and aliases too. */
  readonly pointer: SitePointer;
  /**
   * The snapshots of other kept versions asked for by `@<n>`/`@<alias>` (`selectorKey`), made
   * on first use; they die with this one, so a rollback or an alias change is seen by them as
   * by the live site. At most one per kept version and alias (40).
   */
  readonly views: Map<string, SiteSnapshot | Promise<SiteSnapshot>>;
  /** Its root's commitment, and in hex (the key of its names in the name cache); '' for 0. */
  readonly root: Buffer;
  readonly rootHex: string;
  /** Clock time at which an active tape's reservation ends. */
  readonly expiresAt: number;
  /**
   * Memo owned by the responder (headers prepared per object, keyed by the object itself for a
   * 200 so a hit hashes no string); dies with the snapshot.
   */
  readonly prepared: Map<unknown, unknown>;
  /** The answer for a path, keyed by the path as requested, until its names need reading. */
  readonly routes: Map<string, RouteMemo>;
}

export interface RouteMemo {
  target: SiteTarget;
  refreshAt: number;
}

export interface SiteEntry {
  snapshot: SiteSnapshot;
  fetchedAt: number;
  refreshAt: number;
  freshUntil: number;
  /** Commitment of the `_site.json` whose problems were last logged (log once per version). */
  warnedSettings?: string;
}

interface Settings {
  overrides?: SiteOverrides;
  warnedSettings?: string;
}

export interface SiteSnapshotOptions {
  defaults: GatewaySiteDefaults;
  tenantOverrides: boolean;
  allowAnyOrigin: boolean;
  nameCacheSecs: number;
  unknownTtlMs: number;
  maxSites: number;
  now: () => number;
  warn: (message: string) => void;
}

/**
 * Per tape, the latest snapshot: its status and expiry, and its policy (gateway settings +
 * `_site.json`, rendered to header text once). At most `maxSites` tapes, the one read longest
 * ago going first. Also the one lifetime rule, for snapshots and names alike.
 */
export class SiteSnapshots {
  readonly defaultPolicy: SitePolicy;
  private readonly entries = new Map<string, SiteEntry>();

  constructor(
    private readonly source: SiteSource,
    private readonly options: SiteSnapshotOptions,
  ) {
    this.defaultPolicy = buildSitePolicy(options.defaults, {});
  }

  get(tape: string): SiteEntry | undefined {
    return this.entries.get(tape);
  }

  forget(tape: string): void {
    this.entries.delete(tape);
  }

  /** Tapes with an entry, the one read longest ago first. */
  tapes(): string[] {
    return [...this.entries.keys()];
  }

  /**
   * How long what was read under `policy` is used: min(site max-age, name_cache_secs), at least
   * one second (so `max_age_secs: 0` still protects the RPC node); an unknown tape briefly.
   */
  ttlMs(status: SiteStatus, policy: SitePolicy): number {
    if (status === 'unknown') return this.options.unknownTtlMs;
    const secs = Math.max(1, Math.min(policy.maxAgeSecs, this.options.nameCacheSecs));
    return secs * 1000;
  }

  /**
   * A new snapshot from what the chain said: `_site.json`'s bytes are read from its Name
   * account's track, or for a published version from the version's root (its settings).
   */
  async store(
    tape: string,
    status: TapeStatus,
    settingsFile: SiteObject | undefined,
    pointer: SitePointer = NO_VERSION,
  ): Promise<SiteSnapshot> {
    const previous = this.entries.get(tape);
    const versioned = status.kind === 'active' && pointer.version > 0;
    let settings: Settings = {};
    if (versioned) settings = await this.versionSettingsOf(tape, pointer, previous);
    else if (status.kind === 'active')
      settings = await this.settingsOf(tape, settingsFile, previous);
    const now = this.options.now();
    let policy =
      settings.overrides === undefined
        ? this.defaultPolicy
        : buildSitePolicy(this.options.defaults, settings.overrides);
    if (versioned) policy = { ...policy, version: String(pointer.version) };
    const snapshot: SiteSnapshot = {
      tape,
      status: status.kind,
      policy,
      version: versioned ? pointer.version : 0,
      pointer,
      views: new Map(),
      root: versioned ? pointer.root : NO_VERSION.root,
      rootHex: versioned ? pointer.root.toString('hex') : '',
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

  /**
   * The snapshot of the kept version `selector` names, as of the tape's snapshot `parent`
   * (active): null when the tape keeps no such version. A pinned version is served immutable;
   * an alias with the site's own revalidation; both `noindex`. Its settings are its own root's.
   */
  view(
    parent: SiteSnapshot,
    selector: VersionSelector,
  ): SiteSnapshot | Promise<SiteSnapshot> | null {
    const kept = selectVersion(parent.pointer, selector);
    if (kept === undefined) return null;
    const key = selectorKey(selector);
    const known = parent.views.get(key);
    if (known !== undefined) return known;
    const made = this.makeView(parent, kept, selector.kind === 'pinned').then(
      (view) => {
        parent.views.set(key, view);
        return view;
      },
      (err: unknown) => {
        parent.views.delete(key);
        throw err;
      },
    );
    parent.views.set(key, made);
    return made;
  }

  private async makeView(
    parent: SiteSnapshot,
    kept: KeptRoot,
    pinned: boolean,
  ): Promise<SiteSnapshot> {
    const settings = await this.versionSettingsOf(
      parent.tape,
      { ...parent.pointer, version: kept.version, root: kept.root },
      this.entries.get(parent.tape),
    );
    const base =
      settings.overrides === undefined
        ? this.defaultPolicy
        : buildSitePolicy(this.options.defaults, settings.overrides);
    return {
      tape: parent.tape,
      status: parent.status,
      policy: {
        ...base,
        version: String(kept.version),
        cacheControl: pinned ? IMMUTABLE_CACHE_CONTROL : base.cacheControl,
        robots: 'noindex',
      },
      version: kept.version,
      pointer: parent.pointer,
      views: new Map(),
      root: kept.root,
      rootHex: kept.root.toString('hex'),
      expiresAt: parent.expiresAt,
      prepared: new Map(),
      routes: new Map(),
    };
  }

  /** After a failed read: a snapshot younger than `staleMs` is used 5 s more; true if kept. */
  keepStale(tape: string, now: number, staleMs: number): boolean {
    const entry = this.entries.get(tape);
    if (!entry || now - entry.fetchedAt >= staleMs) return false;
    entry.freshUntil = Math.min(now + 5000, entry.fetchedAt + staleMs);
    entry.refreshAt = entry.freshUntil;
    return true;
  }

  /** A version's settings are its `_site.json` bytes, kept in its root (docs/versions.md). */
  private async versionSettingsOf(
    tape: string,
    pointer: SitePointer,
    previous: SiteEntry | undefined,
  ): Promise<Settings> {
    if (!this.options.tenantOverrides) return {};
    // No catch: a root that cannot be read is a failed read of the site, served stale or 503.
    const bytes = await this.source.versionSettings(pointer.root);
    if (bytes.length === 0) {
      // Empty settings: no `_site.json`, or one over the limit that the root does not carry.
      const [file] = await this.source.readVersion(pointer.root, [SETTINGS_FILE]);
      if (!file || file.size <= MAX_SETTINGS_BYTES) return {};
      return this.warnOnce(
        tape,
        undefined,
        [oversizedSettings(file.size)],
        pointer.root.toString('hex'),
        previous,
      );
    }
    const parsed = parseSiteSettings(bytes, this.options.allowAnyOrigin);
    return this.warnOnce(
      tape,
      parsed.overrides,
      parsed.warnings,
      pointer.root.toString('hex'),
      previous,
    );
  }

  private async settingsOf(
    tape: string,
    file: SiteObject | undefined,
    previous: SiteEntry | undefined,
  ): Promise<Settings> {
    if (!file || !this.options.tenantOverrides) return {};
    const warnings: string[] = [];
    let overrides: SiteOverrides | undefined;
    if (file.size > MAX_SETTINGS_BYTES) {
      warnings.push(oversizedSettings(file.size));
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
    return this.warnOnce(tape, overrides, warnings, file.commitmentHex, previous);
  }

  /** Problems of one settings file are logged once per version of it (`key`). */
  private warnOnce(
    tape: string,
    overrides: SiteOverrides | undefined,
    warnings: string[],
    key: string,
    previous: SiteEntry | undefined,
  ): Settings {
    if (warnings.length > 0 && previous?.warnedSettings !== key) {
      for (const warning of warnings) this.options.warn(`site ${tape}: ${warning}`);
      return { overrides, warnedSettings: key };
    }
    return { overrides };
  }

  private remember(tape: string, entry: SiteEntry): void {
    this.entries.delete(tape);
    this.entries.set(tape, entry);
    if (this.entries.size > this.options.maxSites) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}

/** The warning for a `_site.json` the gateway ignores for its size. */
function oversizedSettings(size: number): string {
  return `${SETTINGS_FILE} is ${size} bytes, over the ${MAX_SETTINGS_BYTES}-byte limit: ignored`;
}
