/**
 * The DNS port of the domains feature: asks a validating resolver for the TXT records of one
 * name. Only an answer the resolver vouches for (NOERROR with the AD flag) comes back as
 * records; everything else is a miss with the reason, which callers log and cache briefly.
 */
export abstract class TxtLookup {
  abstract lookup(name: string): Promise<TxtLookupResult>;
}

export type TxtLookupResult = TxtRecords | TxtMiss;

export interface TxtRecords {
  kind: 'records';
  /** One entry per TXT record; each record is its character-strings, in order. */
  records: Buffer[][];
  /** Smallest TTL of the records (and of any CNAME that led to them), in seconds. */
  ttl: number;
}

export interface TxtMiss {
  kind: 'miss';
  reason: TxtMissReason;
}

export type TxtMissReason =
  /** The name does not exist. */
  | 'nxdomain'
  /** The name exists but has no TXT records. */
  | 'nodata'
  /** NOERROR without the AD flag: unsigned zone, or a resolver that does not validate. */
  | 'insecure'
  /** SERVFAIL: among others, what a validating resolver answers for bogus (tampered) data. */
  | 'servfail'
  /** REFUSED, NOTIMP, FORMERR or any other rcode. */
  | 'refused'
  /** No resolver answered in time. */
  | 'timeout'
  /** Socket errors (unreachable, connection reset) or answers that do not parse. */
  | 'network';
