import { S3Error } from '../s3-error';
import { S3BackendAccessDeniedError, S3ObjectHead, S3ObjectInfo } from '../s3-backend';
import { TrackRef } from '../../tracks/object-reader';
import {
  MAX_CONTENT_TYPE_BYTES,
  MAX_METADATA_BYTES,
  nameProblem,
  VersionEntry,
} from '../../versions/version-entry';
import { decodeObjectMetadata } from './object-metadata-codec';

/**
 * An object of a tape's version as S3 sees it. `versionTime` (unix seconds) is the Last-Modified
 * of an entry that keeps none (`tape deploy`'s): when its version was published.
 */
export function s3EtagOf(entry: VersionEntry, kept = decodeObjectMetadata(entry.metadata)): string {
  return kept.etag ?? entry.commitment.toString('hex');
}

export function toObjectInfo(
  entry: VersionEntry,
  versionTime: number,
  kept = decodeObjectMetadata(entry.metadata),
): S3ObjectInfo {
  return {
    key: entry.name,
    size: entry.size,
    etag: s3EtagOf(entry, kept),
    lastModified: new Date((kept.modified ?? versionTime) * 1000),
  };
}

/** The object's kept headers, x-amz-meta-*, checksum and parts come from its entry's metadata. */
export function toObjectHead(entry: VersionEntry, versionTime: number): S3ObjectHead {
  const kept = decodeObjectMetadata(entry.metadata);
  return {
    ...toObjectInfo(entry, versionTime, kept),
    contentType: entry.contentType,
    metadata: kept.user,
    headers: kept.headers,
    ...(kept.checksum ? { checksum: kept.checksum } : {}),
    ...(kept.parts ? { parts: kept.parts } : {}),
  };
}

/** Where the reader finds the entry's bytes. */
export function trackRefOf(entry: VersionEntry): TrackRef {
  const loc = entry.location;
  if (loc.kind === 'packed') {
    return {
      kind: 'packed',
      commitment: entry.commitment,
      size: entry.size,
      pack: loc.pack,
      packSize: loc.packSize,
      offset: loc.offset,
    };
  }
  return {
    kind: loc.kind === 'stream' ? 'manifest' : 'blob',
    commitment: entry.commitment,
    size: entry.size,
  };
}

/**
 * Refuses, before any byte is received, what no version entry can hold: a name breaking the
 * entry rules (docs/versions.md, "Entries"), a content type over 255 bytes, metadata (as long as
 * it will be) over 1,024 bytes.
 */
export function assertEntryFits(name: string, contentType: string, metadata?: Buffer): void {
  const problem = nameProblem(name);
  if (problem !== undefined) {
    throw new S3BackendAccessDeniedError(`the key cannot be published: ${problem}`);
  }
  if (Buffer.byteLength(contentType, 'utf8') > MAX_CONTENT_TYPE_BYTES) {
    throw new S3Error(
      'InvalidArgument',
      `the Content-Type is longer than ${MAX_CONTENT_TYPE_BYTES} bytes`,
    );
  }
  const bytes = metadata?.length ?? 0;
  if (bytes > MAX_METADATA_BYTES) {
    throw new S3Error(
      'MetadataTooLarge',
      `the object's headers, x-amz-meta-* and checksum take ${bytes} bytes, more than the ` +
        `${MAX_METADATA_BYTES} kept with an object (see docs/s3.md, "Metadata and checksums")`,
    );
  }
}
