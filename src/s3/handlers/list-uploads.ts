import { isHiddenName } from '../../chain/hidden-names';
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
  let lastPrefix: string | undefined;
  let count = 0;
  for (const upload of sorted) {
    if (!upload.key.startsWith(query.prefix) || isHiddenName(upload.key)) continue;
    if (query.keyMarker !== '') {
      const order = compareKeys(upload.key, query.keyMarker);
      if (order < 0) continue;
      if (order === 0) {
        if (query.uploadIdMarker === '' || !passedUploadMarker) {
          if (upload.uploadId === query.uploadIdMarker) passedUploadMarker = true;
          continue;
        }
      }
    }
    let commonPrefix: string | undefined;
    if (query.delimiter !== '') {
      const at = upload.key.indexOf(query.delimiter, query.prefix.length);
      if (at >= 0) commonPrefix = upload.key.slice(0, at + query.delimiter.length);
    }
    if (commonPrefix !== undefined) {
      if (commonPrefix === lastPrefix) continue;
      // Resuming after a common prefix: its uploads were rolled up on the previous page.
      if (query.keyMarker !== '' && compareKeys(commonPrefix, query.keyMarker) <= 0) continue;
    }
    if (count === query.maxUploads) {
      page.isTruncated = true;
      break;
    }
    count++;
    if (commonPrefix !== undefined) {
      page.commonPrefixes.push(commonPrefix);
      lastPrefix = commonPrefix;
      page.nextKeyMarker = commonPrefix;
      page.nextUploadIdMarker = undefined;
    } else {
      page.uploads.push(upload);
      page.nextKeyMarker = upload.key;
      page.nextUploadIdMarker = upload.uploadId;
    }
  }
  if (!page.isTruncated) {
    page.nextKeyMarker = undefined;
    page.nextUploadIdMarker = undefined;
  }
  return page;
}
