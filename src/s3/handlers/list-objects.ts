import { isHiddenName } from '../../chain/hidden-names';
import type { S3ObjectInfo } from '../s3-backend';
import { S3Error } from '../s3-error';
import { rollUpPage } from './key-roll-up';

/**
 * ListObjects (v1 and v2) semantics over a bucket's full key list. Order is UTF-8 byte order,
 * as on S3: `aws s3 sync` walks the local tree and the listing side by side and silently
 * re-uploads or deletes files when the two orders disagree (JavaScript's default string order is
 * UTF-16, which differs for characters above U+FFFF and between some non-ASCII ranges).
 */
export const MAX_KEYS_LIMIT = 1000;

export interface ListObjectsQuery {
  prefix: string;
  /** '' = no delimiter. */
  delimiter: string;
  /** 0..1000 */
  maxKeys: number;
  /** List only keys after this one (start-after, marker or the decoded continuation token). */
  after?: string;
}

export interface ListObjectsPage {
  contents: S3ObjectInfo[];
  commonPrefixes: string[];
  isTruncated: boolean;
  /** The last key or common prefix returned: where the next page starts. */
  lastReturned?: string;
}

export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function sortByKey<T extends { key: string }>(items: T[]): T[] {
  const keyed = items.map((item) => ({ item, bytes: Buffer.from(item.key, 'utf8') }));
  keyed.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  return keyed.map((k) => k.item);
}

export function listObjectsPage(objects: S3ObjectInfo[], query: ListObjectsQuery): ListObjectsPage {
  const page: ListObjectsPage = { contents: [], commonPrefixes: [], isTruncated: false };
  if (query.maxKeys === 0) return page;
  const after = query.after === undefined ? undefined : Buffer.from(query.after, 'utf8');
  const isAfter = (key: string) => !after || Buffer.compare(Buffer.from(key, 'utf8'), after) > 0;
  // Hidden names (an older program may have stored some) are never published, nor listed.
  const listed = sortByKey(objects).filter(
    (o) => o.key.startsWith(query.prefix) && !isHiddenName(o.key) && isAfter(o.key),
  );
  const { entries, isTruncated } = rollUpPage(listed, (o) => o.key, {
    prefix: query.prefix,
    delimiter: query.delimiter,
    max: query.maxKeys,
    // Resuming after a common prefix: its keys were already rolled up on the previous page.
    done: (commonPrefix) => !isAfter(commonPrefix),
  });
  page.isTruncated = isTruncated;
  for (const entry of entries) {
    if (entry.prefix !== undefined) page.commonPrefixes.push(entry.prefix);
    else page.contents.push(entry.item);
    page.lastReturned = entry.prefix ?? entry.item.key;
  }
  return page;
}

/** max-keys: an integer from 0; values above 1000 mean 1000 (as on S3). */
export function parseMaxKeys(raw: string | undefined, name = 'max-keys'): number {
  if (raw === undefined || raw === '') return MAX_KEYS_LIMIT;
  if (!/^\d{1,10}$/.test(raw)) {
    throw new S3Error('InvalidArgument', `${name} must be an integer between 0 and 2147483647`, {
      ArgumentName: name,
      ArgumentValue: raw,
    });
  }
  return Math.min(Number(raw), MAX_KEYS_LIMIT);
}

/** Continuation tokens are opaque to clients: base64url of the last key or prefix returned. */
export function encodeContinuationToken(lastReturned: string): string {
  return Buffer.from(lastReturned, 'utf8').toString('base64url');
}

export function decodeContinuationToken(token: string): string {
  const invalid = () =>
    new S3Error('InvalidArgument', 'the continuation token provided is incorrect', {
      ArgumentName: 'continuation-token',
    });
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw invalid();
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.toString('base64url') !== token) throw invalid();
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalid();
  }
}
