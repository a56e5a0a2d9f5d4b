import { parseHost } from '../config/host-name';
import { HIDDEN_NAME_RULE, isHiddenName } from '../chain/hidden-names';
import { S3Error } from './s3-error';
import { splitQuery } from './auth/sigv4-canonical';
import { percentDecodeUtf8 } from './uri-encoding';

/** S3's limit on key length, in UTF-8 bytes. */
export const MAX_KEY_BYTES = 1024;

/** Which bucket and key a request addresses, and its query, decoded once. */
export interface S3Address {
  bucket?: string;
  /** Undefined for bucket-level requests (including `/bucket/`). */
  key?: string;
  /** As sent (percent-encoded), for SigV4. */
  rawPath: string;
  rawQuery: string;
  /** Decoded parameters; the first occurrence of a name wins. */
  query: Map<string, string>;
}

/**
 * Path style: `/<bucket>/<key…>` at the root of the listener. Virtual-hosted style when the Host
 * is `<bucket>.<virtualHost>`: then the whole path is the key. A `+` in a path is a plus, never
 * a space.
 */
export function parseS3Address(
  rawUrl: string,
  hostHeader: string | undefined,
  virtualHost: string | undefined,
): S3Address {
  if (!rawUrl.startsWith('/')) throw invalidUri();
  const q = rawUrl.indexOf('?');
  const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const rawQuery = q < 0 ? '' : rawUrl.slice(q + 1);
  const query = new Map<string, string>();
  for (const [rawName, rawValue] of splitQuery(rawQuery)) {
    const name = percentDecodeUtf8(rawName);
    const value = percentDecodeUtf8(rawValue);
    if (name === null || value === null) throw invalidUri();
    if (!query.has(name)) query.set(name, value);
  }

  const hostBucket = bucketFromHost(hostHeader, virtualHost);
  let bucket: string | undefined;
  let rawKey: string | undefined;
  if (hostBucket !== undefined) {
    bucket = hostBucket;
    rawKey = rawPath.slice(1);
  } else {
    const rest = rawPath.slice(1);
    const slash = rest.indexOf('/');
    const rawBucket = slash < 0 ? rest : rest.slice(0, slash);
    rawKey = slash < 0 ? undefined : rest.slice(slash + 1);
    if (rawBucket !== '') {
      const decoded = percentDecodeUtf8(rawBucket);
      if (decoded === null) throw invalidUri();
      bucket = decoded;
    }
  }
  if (bucket !== undefined) checkBucketName(bucket);

  let key: string | undefined;
  if (rawKey !== undefined && rawKey !== '') {
    const decoded = percentDecodeUtf8(rawKey);
    // Control characters (C0, DEL, C1) in a key: S3 cannot parse such a URI either (400
    // InvalidURI), and the tape program publishes no such name.
    // eslint-disable-next-line no-control-regex
    if (decoded === null || /[\u0000-\u001f\u007f-\u009f]/.test(decoded)) throw invalidUri();
    checkKey(decoded);
    key = decoded;
  }
  return { bucket, key, rawPath, rawQuery, query };
}

export function checkKey(key: string): void {
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) {
    throw new S3Error('KeyTooLongError', `your key is too long (at most ${MAX_KEY_BYTES} bytes)`);
  }
}

/**
 * Keys with a hidden segment (`.env`, `.well-known/…`, `a/.git/config`: src/chain/hidden-names.ts)
 * are never published. A tape written by an older program may hold such names: to S3 they do
 * not exist (reads answer NoSuchKey, listings leave them out), and no write may create one.
 * Deleting one is allowed, so an owner can clean up.
 */
export function visibleKey(key: string): string {
  if (isHiddenName(key)) throw new S3Error('NoSuchKey', 'the specified key does not exist');
  return key;
}

/** The key of a write: a hidden key is refused before any byte of the body is read. */
export function publishableKey(key: string): string {
  if (isHiddenName(key)) {
    throw new S3Error('InvalidArgument', `this key is never published: ${HIDDEN_NAME_RULE}`, {
      ArgumentName: 'key',
      ArgumentValue: key,
    });
  }
  return key;
}

/**
 * Bucket names in a path: S3's characters, up to 255 long (Ceph's bound) rather than S3's 63 for
 * new buckets: no bucket is created here, and a longer name is simply a bucket that does not
 * exist (404 NoSuchBucket; tape labels are 52 characters, so `<label>-suffix` passes 63).
 */
function checkBucketName(bucket: string): void {
  if (!/^[a-z0-9][a-z0-9.-]{1,253}[a-z0-9]$/.test(bucket)) {
    throw new S3Error('InvalidBucketName', 'the specified bucket is not valid', {
      BucketName: bucket,
    });
  }
}

function bucketFromHost(
  hostHeader: string | undefined,
  virtualHost: string | undefined,
): string | undefined {
  if (!virtualHost || !hostHeader) return undefined;
  // The gateway's one Host parser (src/config/host-name.ts): lower case, no port, no final dot.
  const host = parseHost(hostHeader.trim()).name;
  const base = parseHost(virtualHost.trim()).name;
  if (host === null || base === null) return undefined;
  const suffix = `.${base}`;
  if (!host.endsWith(suffix) || host.length === suffix.length) return undefined;
  return host.slice(0, -suffix.length);
}

function invalidUri(): S3Error {
  return new S3Error('InvalidURI', "Couldn't parse the specified URI.");
}
