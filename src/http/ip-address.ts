/**
 * Strict, allocation-light IP parsing for the metering hot path. IPv4 is a 32-bit number,
 * IPv6 eight 16-bit groups; an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, as a dual-stack
 * socket reports IPv4 peers) becomes the IPv4 address it carries.
 */
export type IpAddress =
  | { readonly family: 4; readonly v4: number; readonly text: string }
  | { readonly family: 6; readonly groups: readonly number[] };

/** Longest textual IPv6 address, with an embedded IPv4 tail. */
const MAX_IPV6_TEXT = 45;

/** Parses one address with nothing around it (no brackets, port, zone or spaces). */
export function parseIp(text: string): IpAddress | undefined {
  if (text.indexOf(':') === -1) {
    const v4 = parseIpv4(text, 0, text.length);
    return v4 < 0 ? undefined : { family: 4, v4, text };
  }
  const groups = parseIpv6(text);
  if (!groups) return undefined;
  if (isIpv4Mapped(groups)) {
    const v4 = ((groups[6] << 16) | groups[7]) >>> 0;
    return { family: 4, v4, text: formatIpv4(v4) };
  }
  return { family: 6, groups };
}

/** The metering identity: an IPv4 address as is, an IPv6 address as its /64 network. */
export function clientKeyOf(ip: IpAddress): string {
  if (ip.family === 4) return ip.text;
  const g = ip.groups;
  return `${hex(g[0])}:${hex(g[1])}:${hex(g[2])}:${hex(g[3])}::/64`;
}

export function formatIpv4(v4: number): string {
  return `${v4 >>> 24}.${(v4 >>> 16) & 255}.${(v4 >>> 8) & 255}.${v4 & 255}`;
}

function hex(group: number): string {
  return group.toString(16);
}

function isIpv4Mapped(g: readonly number[]): boolean {
  return g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff;
}

/** Dotted quad in text[start, end): four decimal parts 0-255, no leading zeros. -1 if not. */
function parseIpv4(text: string, start: number, end: number): number {
  if (end - start < 7 || end - start > 15) return -1;
  let value = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = start; i <= end; i++) {
    const c = i === end ? 46 /* '.' */ : text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || part > 255) return -1;
      value = value * 256 + part;
      parts++;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits === 1 && part === 0) return -1; // leading zero: octal in some parsers
      part = part * 10 + (c - 48);
      digits++;
      if (digits > 3) return -1;
    } else {
      return -1;
    }
  }
  return parts === 4 ? value : -1;
}

function parseIpv6(text: string): number[] | undefined {
  if (text.length < 2 || text.length > MAX_IPV6_TEXT) return undefined;
  const gap = text.indexOf('::');
  if (gap !== -1 && text.indexOf('::', gap + 1) !== -1) return undefined;
  const head = gap === -1 ? text : text.slice(0, gap);
  const tail = gap === -1 ? '' : text.slice(gap + 2);
  const headGroups = head === '' ? [] : parseGroups(head, gap === -1);
  const tailGroups = tail === '' ? [] : parseGroups(tail, true);
  if (!headGroups || !tailGroups) return undefined;
  const missing = 8 - headGroups.length - tailGroups.length;
  if (gap === -1 ? missing !== 0 : missing < 1) return undefined;
  const groups = headGroups;
  for (let i = 0; i < missing && gap !== -1; i++) groups.push(0);
  for (const g of tailGroups) groups.push(g);
  return groups;
}

/** `a:b:c` (optionally ending in a dotted IPv4 when `last`) as 16-bit groups. */
function parseGroups(text: string, last: boolean): number[] | undefined {
  const parts = text.split(':');
  const groups: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (last && i === parts.length - 1 && part.indexOf('.') !== -1) {
      const v4 = parseIpv4(part, 0, part.length);
      if (v4 < 0) return undefined;
      groups.push(v4 >>> 16, v4 & 0xffff);
      continue;
    }
    if (part.length === 0 || part.length > 4 || !/^[0-9a-fA-F]+$/.test(part)) return undefined;
    groups.push(parseInt(part, 16));
  }
  return groups;
}
