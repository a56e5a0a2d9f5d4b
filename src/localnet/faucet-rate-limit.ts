import { PublicKey } from '@solana/web3.js';
import { isIPv6 } from 'node:net';
import { TokenBuckets } from './token-bucket';

export interface FaucetRateLimits {
  /** Faucet requests one client address may make at once, and how many come back per minute. */
  perIp: { burst: number; perMinute: number };
  /** The same for one recipient (the airdrop's `pubkey`, the storage tokens' owner). */
  perRecipient: { burst: number; perMinute: number };
  /** Client addresses no limit applies to (agave's faucet `allowed_ips`): the operator's own. */
  unlimitedIps: string[];
  /** Clients and recipients remembered per limit. */
  maxKeys: number;
}

/** A faucet request refused for its rate; the RPC answers it as agave does a faucet error. */
export class FaucetRateLimited extends Error {
  constructor(
    message: string,
    readonly retryAfterSecs: number,
  ) {
    super(message);
    this.name = 'FaucetRateLimited';
  }
}

/**
 * Token buckets in front of the faucet (requestAirdrop and tape_requestStorageTokens share
 * them): one per client address (IPv6 by /64, what one host usually holds) and one per
 * recipient, so neither one client nor many clients for one address can drain the faucet or
 * fill the ledger with grants.
 */
export class FaucetRateLimit {
  private readonly byIp: TokenBuckets;
  private readonly byRecipient: TokenBuckets;
  private readonly unlimited: Set<string>;

  constructor(
    private readonly limits: FaucetRateLimits,
    now: () => number = Date.now,
  ) {
    this.byIp = new TokenBuckets({ ...limits.perIp, maxKeys: limits.maxKeys }, now);
    this.byRecipient = new TokenBuckets({ ...limits.perRecipient, maxKeys: limits.maxKeys }, now);
    this.unlimited = new Set(limits.unlimitedIps);
  }

  /** Spends one request of the client and one of the recipient, or throws FaucetRateLimited. */
  admit(clientIp: string, recipient: PublicKey): void {
    if (this.unlimited.has(clientIp)) return;
    const ipWait = this.byIp.take(clientKey(clientIp));
    if (ipWait > 0) {
      throw limited(`IP limit reached; ip: ${clientIp}`, this.limits.perIp, ipWait);
    }
    const to = recipient.toBase58();
    const recipientWait = this.byRecipient.take(to);
    if (recipientWait > 0) {
      throw limited(`address limit reached; to: ${to}`, this.limits.perRecipient, recipientWait);
    }
  }
}

function limited(
  what: string,
  limit: { burst: number; perMinute: number },
  waitMs: number,
): FaucetRateLimited {
  const secs = Number.isFinite(waitMs) ? Math.max(1, Math.ceil(waitMs / 1000)) : Infinity;
  const retry = Number.isFinite(secs) ? `retry in ${secs} s` : 'no more requests are granted';
  return new FaucetRateLimited(
    `${what} cap: ${limit.burst} faucet requests, then ${limit.perMinute} per minute; ${retry}`,
    Number.isFinite(secs) ? secs : -1,
  );
}

/** IPv6 clients are counted by /64: one host can hold a whole /64 and rotate through it. */
function clientKey(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const groups = expandIPv6(ip);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : ip;
}

function expandIPv6(ip: string): string[] | null {
  const [head, tail] = ip.split('%', 1)[0].split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail !== '' ? tail.split(':') : [];
  if (tail === undefined && left.length !== 8) return null;
  const missing = 8 - left.length - right.length;
  if (missing < 0) return null;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((g) =>
    g.toLowerCase().replace(/^0+(?=.)/, ''),
  );
}
