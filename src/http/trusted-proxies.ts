import { IpAddress, parseIp } from './ip-address';

interface V4Range {
  network: number;
  mask: number;
}

interface V6Range {
  groups: readonly number[];
  prefix: number;
}

/**
 * The proxy edges whose forwarding headers are believed, as CIDR ranges. Matching is a few
 * integer comparisons: node's BlockList costs about a microsecond per check here, too much
 * for a test that runs on every request.
 */
export class TrustedProxies {
  private constructor(
    private readonly v4: readonly V4Range[],
    private readonly v6: readonly V6Range[],
  ) {}

  static readonly none = new TrustedProxies([], []);

  /** Throws naming the first entry that is not an address or CIDR range. */
  static parse(cidrs: readonly string[]): TrustedProxies {
    const v4: V4Range[] = [];
    const v6: V6Range[] = [];
    for (const cidr of cidrs) {
      const range = parseRange(cidr);
      if (!range) throw new Error(`not a CIDR range: ${JSON.stringify(cidr)}`);
      if ('mask' in range) v4.push(range);
      else v6.push(range);
    }
    return new TrustedProxies(v4, v6);
  }

  get isEmpty(): boolean {
    return this.v4.length === 0 && this.v6.length === 0;
  }

  /** `contains` for an address as text (a socket's `remoteAddress`); false when it is none. */
  containsAddress(address: string): boolean {
    const ip = parseIp(address);
    return ip !== undefined && this.contains(ip);
  }

  contains(ip: IpAddress): boolean {
    if (ip.family === 4) {
      for (const range of this.v4) if ((ip.v4 & range.mask) >>> 0 === range.network) return true;
      return false;
    }
    for (const range of this.v6) if (inV6Range(ip.groups, range)) return true;
    return false;
  }
}

function parseRange(cidr: string): V4Range | V6Range | undefined {
  const slash = cidr.indexOf('/');
  const ip = parseIp((slash === -1 ? cidr : cidr.slice(0, slash)).trim());
  if (!ip) return undefined;
  const written = slash === -1 ? undefined : cidr.slice(slash + 1).trim();
  if (written !== undefined && !/^\d{1,3}$/.test(written)) return undefined;
  let prefix = written === undefined ? undefined : Number(written);
  if (ip.family === 4) {
    // An IPv4-mapped range (`::ffff:10.0.0.0/104`) is the IPv4 range it maps.
    const mapped = cidr.indexOf(':') !== -1;
    if (mapped && prefix !== undefined) prefix = prefix < 96 ? -1 : prefix - 96;
    prefix ??= 32;
    if (prefix < 0 || prefix > 32) return undefined;
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    return { network: (ip.v4 & mask) >>> 0, mask };
  }
  prefix ??= 128;
  if (prefix > 128) return undefined;
  return { groups: ip.groups.map((g, i) => g & groupMask(prefix, i)), prefix };
}

function groupMask(prefix: number, index: number): number {
  const bits = Math.min(16, Math.max(0, prefix - index * 16));
  return bits === 0 ? 0 : (0xffff << (16 - bits)) & 0xffff;
}

function inV6Range(groups: readonly number[], range: V6Range): boolean {
  for (let i = 0; i * 16 < range.prefix; i++) {
    if ((groups[i] & groupMask(range.prefix, i)) !== range.groups[i]) return false;
  }
  return true;
}
