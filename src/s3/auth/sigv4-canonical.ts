import { awsEncodeBytes, percentDecodeBytes } from '../uri-encoding';

/**
 * The parts of SigV4's canonical request that depend on how the client wrote its URL.
 *
 * S3 signs the path encoded ONCE (other AWS services encode it twice) and without `.`/`//`
 * normalisation. Clients encode keys with the same rules, so decoding each segment and
 * re-encoding it gives what they signed; the form exactly as sent is kept as a second candidate
 * for clients that escape differently (e.g. `%7E` for `~`). Both candidates describe the very
 * bytes the client sent, so accepting either is as strict as accepting one.
 */
export interface CanonicalCandidate {
  uri: string;
  query: string;
}

export function canonicalCandidates(
  rawPath: string,
  rawQuery: string,
  omitParam?: string,
): CanonicalCandidate[] {
  const normalized = { uri: canonicalUri(rawPath), query: canonicalQuery(rawQuery, omitParam) };
  const asSent = {
    uri: rawPath === '' ? '/' : rawPath,
    query: rawSortedQuery(rawQuery, omitParam),
  };
  if (asSent.uri === normalized.uri && asSent.query === normalized.query) return [normalized];
  return [normalized, asSent];
}

/** Each `/`-separated segment percent-decoded, then encoded once with AWS's rules. */
export function canonicalUri(rawPath: string): string {
  if (rawPath === '') return '/';
  return rawPath
    .split('/')
    .map((segment) => {
      const bytes = percentDecodeBytes(segment);
      return bytes === null ? segment : awsEncodeBytes(bytes, false);
    })
    .join('/');
}

/** Parameters decoded, re-encoded with AWS's rules, sorted by name then value. */
export function canonicalQuery(rawQuery: string, omitParam?: string): string {
  const pairs: [string, string][] = [];
  for (const [rawName, rawValue] of splitQuery(rawQuery)) {
    const name = encodeComponent(rawName);
    if (omitParam !== undefined && name === omitParam) continue;
    pairs.push([name, encodeComponent(rawValue)]);
  }
  return sortAndJoin(pairs);
}

/** The parameters as sent, only sorted (what botocore signs for S3). */
export function rawSortedQuery(rawQuery: string, omitParam?: string): string {
  const pairs = splitQuery(rawQuery).filter(([name]) => name !== omitParam);
  return sortAndJoin(pairs);
}

/** `name=value` pairs as sent; a parameter without `=` has the empty value. */
export function splitQuery(rawQuery: string): [string, string][] {
  if (rawQuery === '') return [];
  const pairs: [string, string][] = [];
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    pairs.push(eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)]);
  }
  return pairs;
}

/**
 * `name:value\n` for each signed header: values of repeated headers joined with `,`, each value
 * trimmed with inner runs of whitespace collapsed to one space.
 */
export function canonicalHeaders(rawHeaders: string[], signedHeaders: string[]): string {
  const values = new Map<string, string[]>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    const list = values.get(name);
    const value = rawHeaders[i + 1].trim().replace(/\s+/g, ' ');
    if (list) list.push(value);
    else values.set(name, [value]);
  }
  let out = '';
  for (const name of signedHeaders) out += `${name}:${(values.get(name) ?? []).join(',')}\n`;
  return out;
}

function encodeComponent(raw: string): string {
  const bytes = percentDecodeBytes(raw);
  return bytes === null ? raw : awsEncodeBytes(bytes, false);
}

function sortAndJoin(pairs: [string, string][]): string {
  pairs.sort(([an, av], [bn, bv]) => compareAscii(an, bn) || compareAscii(av, bv));
  return pairs.map(([n, v]) => `${n}=${v}`).join('&');
}

function compareAscii(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
