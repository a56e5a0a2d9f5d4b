import { IntRange } from './config-decorators';

/**
 * `gateway.admin.tls_ask.*`: how the on-demand TLS `ask` endpoint remembers its answers and how
 * fast it may look names up. Each fresh answer for a label or a customer domain costs a chain
 * read (and DNS for a customer domain) and may cost a certificate from the CA, whose limits are
 * per registered domain per week: random names must not be able to spend either.
 */
export class TlsAskConfig {
  /** Answers remembered (approvals and refusals together, oldest dropped first). */
  @IntRange(1, 1_000_000)
  cache_entries = 10_000;

  /** How long a refusal (no such tape, expired tape, no binding) is remembered. */
  @IntRange(1, 3600)
  refused_ttl_secs = 60;

  /** How long an approval is remembered; never past the tape's expiry. */
  @IntRange(1, 86_400)
  approved_ttl_secs = 300;

  /** Fresh decisions (names not in the cache) per minute, sustained; past it the ask says 429. */
  @IntRange(1, 100_000)
  lookups_per_minute = 30;

  /** Fresh decisions allowed at once on top of the sustained rate (the bucket's size). */
  @IntRange(1, 100_000)
  lookup_burst = 20;
}
