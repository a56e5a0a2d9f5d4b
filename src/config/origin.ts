/**
 * Origins as they may appear in `cors_origins` and `connect_origins` (gateway settings and
 * `_site.json`). These strings end up inside response headers (Access-Control-Allow-Origin,
 * Content-Security-Policy), so only the strict shape `scheme://host[:port]` passes: scheme
 * http, https, ws or wss; host an LDH name, a dotted IPv4 address or a bracketed IPv6 address;
 * port 1-65535. Anything else (spaces, `;`, `,`, quotes, CR/LF, paths, wildcards in hosts,
 * non-ASCII) is refused, so an entry can never add a CSP directive or a header line.
 *
 * Normal form: lower case, default port removed (`https://a.example:443` -> `https://a.example`),
 * one trailing `/` tolerated and removed: the form a browser sends in the `Origin` header.
 */

export const ANY_ORIGIN = '*';

const MAX_ORIGIN_LENGTH = 300;
const ORIGIN = /^(https?|wss?):\/\/([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::([0-9]{1,5}))?\/?$/;
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV4 =
  /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/;
const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443', ws: '80', wss: '443' };

export type ParsedOrigin = { ok: true; origin: string } | { ok: false; reason: string };

/** Parses one origin entry (not `*`: callers decide whether a wildcard is allowed). */
export function parseOrigin(value: unknown): ParsedOrigin {
  if (typeof value !== 'string') return { ok: false, reason: 'not a string' };
  if (value.length === 0) return { ok: false, reason: 'empty' };
  if (value.length > MAX_ORIGIN_LENGTH) return { ok: false, reason: 'too long' };
  const match = ORIGIN.exec(value.toLowerCase());
  if (!match) {
    return {
      ok: false,
      reason: 'not an origin of the form scheme://host[:port] (http, https, ws, wss)',
    };
  }
  const [, scheme, host, port] = match;
  if (!host.startsWith('[') && !isHostName(host) && !IPV4.test(host)) {
    return { ok: false, reason: 'not a valid host' };
  }
  if (host.startsWith('[') && !isBracketedIpv6(host)) {
    return { ok: false, reason: 'not a valid IPv6 address' };
  }
  if (port !== undefined) {
    const number = Number(port);
    if (number < 1 || number > 65535 || port.startsWith('0')) {
      return { ok: false, reason: 'invalid port' };
    }
    if (DEFAULT_PORTS[scheme] !== port) return { ok: true, origin: `${scheme}://${host}:${port}` };
  }
  return { ok: true, origin: `${scheme}://${host}` };
}

export interface OriginList {
  /** `*` was among the entries (and allowed). */
  any: boolean;
  /** Normal-form origins, without duplicates, in the order given. */
  origins: string[];
  /** One line per entry that was dropped, for the log. */
  dropped: string[];
}

/**
 * Parses a list of entries; invalid entries are dropped (reported in `dropped`). `*` counts
 * only when `allowAny`, and only as a whole entry.
 */
export function parseOriginList(entries: readonly unknown[], allowAny: boolean): OriginList {
  const origins = new Set<string>();
  const dropped: string[] = [];
  let any = false;
  entries.forEach((entry, index) => {
    if (entry === ANY_ORIGIN) {
      if (allowAny) any = true;
      else dropped.push(`[${index}] "*" is not allowed here`);
      return;
    }
    const parsed = parseOrigin(entry);
    if (parsed.ok) origins.add(parsed.origin);
    else dropped.push(`[${index}] ${describe(entry)}: ${parsed.reason}`);
  });
  return { any, origins: [...origins], dropped };
}

function isHostName(host: string): boolean {
  if (host.length > 253) return false;
  const labels = host.split('.');
  // A final all-numeric label reads as an IPv4 address in WHATWG URLs: only dotted quads pass.
  if (/^[0-9]+$/.test(labels[labels.length - 1])) return false;
  return labels.every((label) => LDH_LABEL.test(label));
}

function isBracketedIpv6(host: string): boolean {
  const inner = host.slice(1, -1);
  if (inner.length < 2 || inner.length > 45 || inner.includes(':::')) return false;
  const doubleColons = inner.split('::').length - 1;
  if (doubleColons > 1) return false;
  const groups = inner.split(':');
  const last = groups[groups.length - 1];
  const hasIpv4Tail = last.includes('.');
  if (hasIpv4Tail && !IPV4.test(last)) return false;
  const hexGroups = hasIpv4Tail ? groups.slice(0, -1) : groups;
  if (!hexGroups.every((g) => g === '' || /^[0-9a-f]{1,4}$/.test(g))) return false;
  const count = hexGroups.filter((g) => g !== '').length + (hasIpv4Tail ? 2 : 0);
  return doubleColons === 1 ? count < 8 : count === 8;
}

/** A short, log-safe rendering of a rejected entry (no control characters, bounded length). */
function describe(entry: unknown): string {
  const text = typeof entry === 'string' ? entry : (JSON.stringify(entry) ?? String(entry));
  const safe = JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
  return safe;
}
