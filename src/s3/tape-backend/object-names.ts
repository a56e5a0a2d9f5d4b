import { MAX_CONTENT_TYPE_BYTES, MAX_NAME_BYTES } from '../../versions/version-entry';
import { isHiddenName } from '../../chain/hidden-names';
// The CLI's rule, imported rather than copied so `tape deploy` and S3 can never disagree.
import { contentTypeOf } from '../../versions/content-type';
import { S3BackendAccessDeniedError } from '../s3-backend';

const OCTET_STREAM = 'application/octet-stream';

/**
 * Refuses names `tape deploy` would never publish: any path segment starting with `.` (hidden
 * files, `.git/`, `.env`, and the whole `.well-known/` namespace, which a site must not be able
 * to claim on its domain), names with control characters, and names outside 1..1024 bytes.
 */
export function assertPublishableName(name: string): void {
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes === 0 || bytes > MAX_NAME_BYTES) {
    throw new S3BackendAccessDeniedError(`object names are 1 to ${MAX_NAME_BYTES} bytes of UTF-8`);
  }
  if (name === '.well-known' || name.startsWith('.well-known/')) {
    throw new S3BackendAccessDeniedError(
      'the .well-known/ namespace is never published on a tape (same rule as tape deploy)',
    );
  }
  // The S3 handlers refuse these first (400 InvalidArgument, s3-address.ts `publishableKey`);
  // kept here so no caller of the backend can publish one.
  if (isHiddenName(name)) {
    throw new S3BackendAccessDeniedError(
      'hidden names (a path segment starting with ".") are never published on a tape (same rule as tape deploy)',
    );
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) {
    throw new S3BackendAccessDeniedError('object names with control characters are not published');
  }
}

/**
 * The content type an object gets: from its extension, exactly as `tape deploy` sets it. Only
 * when the extension says nothing does a well-formed type the client sent count (an SDK user who
 * uploads `data.unknownext` with an explicit type gets that type).
 */
export function contentTypeForName(name: string, clientType: string | undefined): string {
  const fromExtension = contentTypeOf(name);
  if (fromExtension !== OCTET_STREAM || clientType === undefined) return fromExtension;
  return isUsableContentType(clientType) ? clientType.trim() : fromExtension;
}

/**
 * The content type of a copy that replaces the metadata (x-amz-metadata-directive: REPLACE):
 * the well-formed type the request sent, else the destination's extension. A plain copy keeps
 * the source's type, as on S3.
 */
export function contentTypeForCopy(destination: string, replacement: string | undefined): string {
  return replacement !== undefined && isUsableContentType(replacement)
    ? replacement.trim()
    : contentTypeOf(destination);
}

/** `type/subtype[; params]`, printable ASCII, within the chain's 255-byte field. */
export function isUsableContentType(value: string): boolean {
  const trimmed = value.trim();
  return (
    Buffer.byteLength(trimmed) <= MAX_CONTENT_TYPE_BYTES &&
    /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*;[\x20-\x7e]*)?$/.test(trimmed) &&
    trimmed.toLowerCase() !== 'binary/octet-stream'
  );
}
