import { NameRecord } from '../../chain/account-layouts';
import type { S3ObjectHead, S3ObjectInfo } from '../s3-backend';
import { decodeObjectMetadata } from './object-metadata-codec';

/** The object's S3 ETag: the one kept in its tail, else (names `tape deploy` wrote) the commitment. */
export function s3EtagOf(record: NameRecord, kept = decodeObjectMetadata(record.metadata)): string {
  return kept.etag ?? record.commitment.toString('hex');
}

export function toObjectInfo(
  record: NameRecord,
  kept = decodeObjectMetadata(record.metadata),
): S3ObjectInfo {
  return {
    key: record.name,
    size: record.size,
    etag: s3EtagOf(record, kept),
    lastModified: new Date(record.updatedAt * 1000),
  };
}

/** The object's kept headers, x-amz-meta-*, checksum and parts come from its name's tail. */
export function toObjectHead(record: NameRecord): S3ObjectHead {
  const kept = decodeObjectMetadata(record.metadata);
  return {
    ...toObjectInfo(record, kept),
    contentType: record.contentType,
    metadata: kept.user,
    headers: kept.headers,
    ...(kept.checksum ? { checksum: kept.checksum } : {}),
    ...(kept.parts ? { parts: kept.parts } : {}),
  };
}
