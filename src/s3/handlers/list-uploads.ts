import { isHiddenName } from '../../chain/hidden-names';
import { rollUpPage } from './key-roll-up';
import { compareKeys } from './list-objects';
import type { S3MultipartUploadInfo } from '../s3-backend';

/** ListMultipartUploads paging: by key (UTF-8 byte order), then initiation time, as S3 orders them. */
export interface ListUploadsQuery {
  prefix: string;
  delimiter: string;
  keyMarker: string;
  uploadIdMarker: string;
  maxUploads: number;
}

export interface ListUploadsPage {
  uploads: S3MultipartUploadInfo[];
  commonPrefixes: string[];
  isTruncated: boolean;
  nextKeyMarker?: string;
  nextUploadIdMarker?: string;
}

export function listUploadsPage(
  all: S3MultipartUploadInfo[],
  query: ListUploadsQuery,
): ListUploadsPage {
  const sorted = [...all].sort(
    (a, b) =>
      compareKeys(a.key, b.key) ||
      a.initiated.getTime() - b.initiated.getTime() ||
      compareKeys(a.uploadId, b.uploadId),
  );
  const page: ListUploadsPage = { uploads: [], commonPrefixes: [], isTruncated: false };
  let passedUploadMarker = false;
  const listed = sorted.filter((upload) => {
    if (!upload.key.startsWith(query.prefix) || isHiddenName(upload.key)) return false;
    if (query.keyMarker === '') return true;
    const order = compareKeys(upload.key, query.keyMarker);
    if (order < 0) return false;
    if (order === 0 && (query.uploadIdMarker === '' || !passedUploadMarker)) {
      if (upload.uploadId === query.uploadIdMarker) passedUploadMarker = true;
      return false;
    }
    return true;
  });
  const { entries, isTruncated } = rollUpPage(listed, (u) => u.key, {
    prefix: query.prefix,
    delimiter: query.delimiter,
    max: query.maxUploads,
    // Resuming after a common prefix: its uploads were rolled up on the previous page.
    done: (commonPrefix) =>
      query.keyMarker !== '' && compareKeys(commonPrefix, query.keyMarker) <= 0,
  });
  page.isTruncated = isTruncated;
  for (const entry of entries) {
    if (entry.prefix !== undefined) {
      page.commonPrefixes.push(entry.prefix);
      page.nextKeyMarker = entry.prefix;
      page.nextUploadIdMarker = undefined;
    } else {
      page.uploads.push(entry.item);
      page.nextKeyMarker = entry.item.key;
      page.nextUploadIdMarker = entry.item.uploadId;
    }
  }
  if (!page.isTruncated) {
    page.nextKeyMarker = undefined;
    page.nextUploadIdMarker = undefined;
  }
  return page;
}
