import type { IncomingHttpHeaders } from 'node:http';
import { unquoteEtag } from '../http-header';
import { S3Error } from '../s3-error';

/**
 * Conditional writes (PutObject, CompleteMultipartUpload, CopyObject's destination):
 * `If-None-Match: *` writes only when the key does not exist (with ETags: unless it holds one
 * of them); `If-Match: <etag>` only when it exists with that ETag. The backend
 * checks it against the name's current state while it holds the name's write lock, so two
 * writers racing on one key cannot both pass.
 */
export interface S3WriteCondition {
  /** Unquoted ETags; `*` matches any existing object (S3 accepts only `*`; Ceph also ETags). */
  ifNoneMatch?: string[];
  /** Unquoted ETags; `*` matches any existing object. */
  ifMatch?: string[];
}

export function parseWriteCondition(headers: IncomingHttpHeaders): S3WriteCondition | undefined {
  const ifNoneMatch = single(headers['if-none-match']);
  const ifMatch = single(headers['if-match']);
  if (ifNoneMatch === undefined && ifMatch === undefined) return undefined;
  const condition: S3WriteCondition = {};
  if (ifNoneMatch !== undefined) condition.ifNoneMatch = etagList(ifNoneMatch);
  if (ifMatch !== undefined) condition.ifMatch = etagList(ifMatch);
  return condition;
}

/** Throws 412 PreconditionFailed (or 404 NoSuchKey for If-Match on an absent key). */
export function checkWriteCondition(
  condition: S3WriteCondition | undefined,
  currentEtag: string | null,
  key: string,
): void {
  if (!condition) return;
  const failed = (header: string) =>
    new S3Error(
      'PreconditionFailed',
      'at least one of the pre-conditions you specified did not hold',
      {
        Condition: header,
      },
    );
  if (
    condition.ifNoneMatch &&
    currentEtag !== null &&
    matches(condition.ifNoneMatch, currentEtag)
  ) {
    throw failed('If-None-Match');
  }
  if (condition.ifMatch) {
    if (currentEtag === null) {
      throw new S3Error('NoSuchKey', 'the specified key does not exist', { Key: key });
    }
    if (!matches(condition.ifMatch, currentEtag)) throw failed('If-Match');
  }
}

function matches(list: string[], etag: string): boolean {
  return list.some((t) => t === '*' || t === etag);
}

function etagList(header: string): string[] {
  return header
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .map((t) => (t === '*' ? t : unquoteEtag(t.replace(/^W\//, ''))));
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
