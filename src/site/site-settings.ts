import { OriginList, parseOriginList } from '../config/origin';

/**
 * `_site.json`, the per-site settings object at the tape root. Every field is optional and an
 * absent field falls back to the gateway setting. The file is the tenant's: it is parsed
 * defensively, and nothing in it can fail a request. A file that is too big, not UTF-8, not
 * JSON or not a JSON object is ignored as a whole; a field of the wrong type is ignored on its
 * own; unknown fields are ignored (newer sites on older gateways). Each problem is reported as
 * a warning for the log.
 */

export const SETTINGS_FILE = '_site.json';
export const MAX_SETTINGS_BYTES = 64 * 1024;
export const MAX_AGE_LIMIT_SECS = 31536000;
/** More entries than this are dropped: every one is copied into headers of every response. */
export const MAX_ORIGIN_ENTRIES = 64;

export interface SiteOverrides {
  spaFallback?: boolean;
  maxAgeSecs?: number;
  corsOrigins?: OriginList;
  connectOrigins?: OriginList;
}

export interface ParsedSettings {
  overrides: SiteOverrides;
  warnings: string[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * `allowAnyOrigin`: whether `*` is accepted in the origin lists (the operator's
 * `tenant_wildcard_origins`); otherwise such an entry is dropped with a warning.
 */
export function parseSiteSettings(bytes: Uint8Array, allowAnyOrigin: boolean): ParsedSettings {
  if (bytes.byteLength > MAX_SETTINGS_BYTES) {
    return ignored(`is ${bytes.byteLength} bytes, over the ${MAX_SETTINGS_BYTES}-byte limit`);
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return ignored('is not UTF-8');
  }
  let document: unknown;
  try {
    document = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    return ignored(`is not JSON (${(err as Error).message})`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    return ignored('is not a JSON object');
  }
  const fields = document as Record<string, unknown>;
  const overrides: SiteOverrides = {};
  const warnings: string[] = [];
  const field = (key: string): unknown => (Object.hasOwn(fields, key) ? fields[key] : undefined);

  const spa = field('spa_fallback');
  if (typeof spa === 'boolean') overrides.spaFallback = spa;
  else if (spa !== undefined) warnings.push(wrongType('spa_fallback', 'a boolean'));

  const maxAge = field('max_age_secs');
  if (
    Number.isInteger(maxAge) &&
    (maxAge as number) >= 0 &&
    (maxAge as number) <= MAX_AGE_LIMIT_SECS
  ) {
    overrides.maxAgeSecs = maxAge as number;
  } else if (maxAge !== undefined) {
    warnings.push(wrongType('max_age_secs', `an integer from 0 to ${MAX_AGE_LIMIT_SECS}`));
  }

  for (const [key, target] of [
    ['cors_origins', 'corsOrigins'],
    ['connect_origins', 'connectOrigins'],
  ] as const) {
    const value = field(key);
    if (value === undefined) continue;
    if (!Array.isArray(value)) {
      warnings.push(wrongType(key, 'an array of origins'));
      continue;
    }
    if (value.length > MAX_ORIGIN_ENTRIES) {
      warnings.push(
        `${SETTINGS_FILE}: ${key}: only the first ${MAX_ORIGIN_ENTRIES} entries are used`,
      );
    }
    const list = parseOriginList(value.slice(0, MAX_ORIGIN_ENTRIES), allowAnyOrigin);
    for (const line of list.dropped) warnings.push(`${SETTINGS_FILE}: ${key}${line} dropped`);
    overrides[target] = list;
  }
  return { overrides, warnings };
}

function ignored(why: string): ParsedSettings {
  return { overrides: {}, warnings: [`${SETTINGS_FILE} ${why}: ignored`] };
}

function wrongType(key: string, expected: string): string {
  return `${SETTINGS_FILE}: ${key} must be ${expected}: ignored`;
}
