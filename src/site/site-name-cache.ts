import { SiteObject } from './site-source';

/** What the gateway knows about one name of one tape: its object, or that there is none. */
export interface NameEntry {
  /** null: the tape has no object by this name (a negative entry, cached the same way). */
  readonly object: SiteObject | null;
  readonly fetchedAt: number;
  /** Used without asking the chain until then. */
  freshUntil: number;
  /** From then on a request that uses the entry has it read again in the background. */
  refreshAt: number;
}

/**
 * Names of sites, one entry per (tape, name), hits and misses alike, bounded: past `maxNames`
 * the least recently used entry goes first. Pure bookkeeping on a caller's clock; loading is
 * SiteDirectory's.
 */
export class SiteNameCache {
  private readonly entries = new Map<string, NameEntry>();

  constructor(private readonly maxNames: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(tape: string, name: string): NameEntry | undefined {
    return this.entries.get(key(tape, name));
  }

  /** `get` for an entry a request is about to rely on: it becomes the most recently used. */
  use(tape: string, name: string): NameEntry | undefined {
    const k = key(tape, name);
    const entry = this.entries.get(k);
    if (entry !== undefined) {
      this.entries.delete(k);
      this.entries.set(k, entry);
    }
    return entry;
  }

  /**
   * Remembers what the chain said about a name for `ttlMs`, refreshed ahead at 3/4 of it. An
   * unchanged object keeps its identity, so what was prepared for it stays valid.
   */
  set(tape: string, name: string, object: SiteObject | null, now: number, ttlMs: number): void {
    const k = key(tape, name);
    const previous = this.entries.get(k);
    const kept = previous?.object && object && sameObject(previous.object, object);
    this.entries.delete(k);
    this.entries.set(k, {
      object: kept ? previous.object : object,
      fetchedAt: now,
      freshUntil: now + ttlMs,
      refreshAt: now + ttlMs * 0.75,
    });
    if (this.entries.size > this.maxNames) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
  }

  /**
   * After a failed read: an entry read less than `staleMs` ago is used for 5 s more (then the
   * chain is asked again); true when there was one.
   */
  keepStale(tape: string, name: string, now: number, staleMs: number): boolean {
    const entry = this.entries.get(key(tape, name));
    if (!entry || now - entry.fetchedAt >= staleMs) return false;
    entry.freshUntil = Math.min(now + 5000, entry.fetchedAt + staleMs);
    entry.refreshAt = entry.freshUntil;
    return true;
  }

  forget(tape: string): void {
    const prefix = `${tape}/`;
    for (const k of this.entries.keys()) if (k.startsWith(prefix)) this.entries.delete(k);
  }
}

/** A tape address has no `/`, so the first one ends it. */
function key(tape: string, name: string): string {
  return `${tape}/${name}`;
}

function sameObject(a: SiteObject, b: SiteObject): boolean {
  return (
    a.commitmentHex === b.commitmentHex &&
    a.size === b.size &&
    a.kind === b.kind &&
    a.contentType === b.contentType
  );
}
