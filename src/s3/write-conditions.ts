import type { IncomingHttpHeaders } from 'node:http';
import { unquoteEtag } from './s3-xml-requests';
import { S3Error } from './s3-error';

/**
 * Conditional writes (PutObject, CompleteMultipartUpload): `If-None-Match: *` writes only when
 * the key does not exist; `If-Match: <etag>` only when it exists with that ETag. The backend
 * checks it against the name's current state while it holds the name's write lock, so two
 * writers racing on one key cannot both pass.
 */
export interface S3WriteCondition {
  ifNoneMatch?: '*';
  /** Unquoted ETags; `*` matches any existing object. */
  ifMatch?: string[];
}

export function parseWriteCondition(headers: IncomingHttpHeaders): S3WriteCondition | undefined {
  const ifNoneMatch = single(headers['if-none-match']);
  const ifMatch = single(headers['if-match']);
  if (ifNoneMatch === undefined && ifMatch === undefined) return undefined;
  const condition: S3WriteCondition = {};
  if (ifNoneMatch !== undefined) {
    if (ifNoneMatch.trim() !== '*') {
      throw new S3Error(
        'NotImplemented',
        'a header you provided implies functionality that is not implemented (If-None-Match on a write takes only *)',
        { Header: 'If-None-Match' },
      );
    }
    condition.ifNoneMatch = '*';
  }
  if (ifMatch !== undefined) {
    condition.ifMatch = ifMatch
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '')
      .map((t) => (t === '*' ? t : unquoteEtag(t.replace(/^W\//, ''))));
  }
  return condition;
}

/** Throws 412 PreconditionFailed (or 404 NoSuchKey for If-Match on an absent key). */
export function checkWriteCondition(
  condition: S3WriteCondition | undefined,
  currentEtag: string | null,
  key: string,
): void {
  if (!condition) return;
  if (condition.ifNoneMatch === '*' && currentEtag !== null) {
    throw new S3Error(
      'PreconditionFailed',
      'at least one of the pre-conditions you specified did not hold',
      {
        Condition: 'If-None-Match',
      },
    );
  }
  if (condition.ifMatch) {
    if (currentEtag === null) {
      throw new S3Error('NoSuchKey', 'the specified key does not exist', { Key: key });
    }
    if (!condition.ifMatch.some((t) => t === '*' || t === currentEtag)) {
      throw new S3Error(
        'PreconditionFailed',
        'at least one of the pre-conditions you specified did not hold',
        {
          Condition: 'If-Match',
        },
      );
    }
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
