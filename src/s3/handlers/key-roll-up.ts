/** One entry of a listing page: an item, or the common prefix its key rolls up into. */
export type RolledUp<T> = { item: T; prefix?: undefined } | { item?: undefined; prefix: string };

export interface RollUpQuery {
  prefix: string;
  /** '' = no delimiter: nothing rolls up. */
  delimiter: string;
  /** Entries per page (items and common prefixes count alike). */
  max: number;
  /**
   * Whether a common prefix was already returned by an earlier page (it is at or before the
   * marker the listing resumes from): its keys are skipped.
   */
  done(commonPrefix: string): boolean;
}

/**
 * The page of a listing as S3 builds it (ListObjects, ListMultipartUploads): from items in key
 * order, already past the marker, each key under `prefix` that holds `delimiter` after the
 * prefix rolls up into one common prefix (the key up to and including the delimiter), listed
 * once; items and prefixes count alike towards `max`, and the page is truncated when more
 * entries follow.
 */
export function rollUpPage<T>(
  items: Iterable<T>,
  keyOf: (item: T) => string,
  query: RollUpQuery,
): { entries: RolledUp<T>[]; isTruncated: boolean } {
  const entries: RolledUp<T>[] = [];
  let lastPrefix: string | undefined;
  for (const item of items) {
    const key = keyOf(item);
    let commonPrefix: string | undefined;
    if (query.delimiter !== '') {
      const at = key.indexOf(query.delimiter, query.prefix.length);
      if (at >= 0) commonPrefix = key.slice(0, at + query.delimiter.length);
    }
    if (commonPrefix !== undefined) {
      if (commonPrefix === lastPrefix || query.done(commonPrefix)) continue;
    }
    if (entries.length === query.max) return { entries, isTruncated: true };
    if (commonPrefix !== undefined) {
      entries.push({ prefix: commonPrefix });
      lastPrefix = commonPrefix;
    } else {
      entries.push({ item });
    }
  }
  return { entries, isTruncated: false };
}
