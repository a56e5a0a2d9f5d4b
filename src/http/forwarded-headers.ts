/**
 * Reading proxy hops out of `X-Forwarded-For` and RFC 7239 `Forwarded`, rightmost (closest)
 * first. Only as many hops as the caller asks for are touched, so a header stuffed with
 * thousands of entries costs no more than a short one.
 */

/** Longer than any address with brackets, port and quotes: a hop this long is not an address. */
const MAX_HOP_CHARS = 128;

/**
 * Calls `visit` with each comma-separated element, rightmost first, until it returns false or
 * `maxElements` were visited.
 */
export function eachHopFromRight(
  header: string,
  maxElements: number,
  visit: (element: string) => boolean,
): void {
  let end = header.length;
  for (let seen = 0; seen < maxElements; seen++) {
    const comma = end === 0 ? -1 : header.lastIndexOf(',', end - 1);
    if (end - comma - 1 > MAX_HOP_CHARS * 4) {
      visit(''); // far too long to be one hop: let the caller treat it as malformed
      return;
    }
    if (!visit(header.slice(comma + 1, end))) return;
    if (comma < 0) return;
    end = comma;
  }
}

/** The address text of an X-Forwarded-For hop: `1.2.3.4`, `1.2.3.4:80`, `[::1]:80`, `::1`. */
export function xForwardedForAddress(element: string): string | undefined {
  return nodeAddress(element.trim());
}

/**
 * The address text of the `for=` parameter of one `Forwarded` element, e.g.
 * `for="[2001:db8::17]:4711";proto=https`. Undefined for an element without exactly one `for=`,
 * and for the obfuscated and `unknown` identifiers RFC 7239 allows: none names a client.
 */
export function forwardedForAddress(element: string): string | undefined {
  let found: string | undefined;
  for (const pair of element.split(';')) {
    const eq = pair.indexOf('=');
    if (eq === -1) return undefined;
    if (pair.slice(0, eq).trim().toLowerCase() !== 'for') continue;
    if (found !== undefined) return undefined;
    found = unquote(pair.slice(eq + 1).trim());
    if (found === undefined) return undefined;
  }
  return found === undefined ? undefined : nodeAddress(found);
}

function unquote(value: string): string | undefined {
  if (!value.startsWith('"')) return value;
  if (value.length < 2 || !value.endsWith('"')) return undefined;
  const inner = value.slice(1, -1);
  // Quoted-pair escapes never occur in an address; a backslash means a forged or broken value.
  return inner.includes('\\') || inner.includes('"') ? undefined : inner;
}

/** Strips `[...]` and `:port` from a node; undefined when the shape is wrong. */
function nodeAddress(node: string): string | undefined {
  if (node.length === 0 || node.length > MAX_HOP_CHARS) return undefined;
  if (node.charCodeAt(0) === 91 /* '[' */) {
    const close = node.indexOf(']');
    if (close === -1) return undefined;
    const rest = node.slice(close + 1);
    if (rest !== '' && !isPort(rest)) return undefined;
    return node.slice(1, close);
  }
  const colon = node.indexOf(':');
  if (colon !== -1 && node.indexOf(':', colon + 1) === -1) {
    // Exactly one colon: IPv4 with a port (bare IPv6 has at least two).
    return isPort(node.slice(colon)) ? node.slice(0, colon) : undefined;
  }
  return node;
}

/** `:` followed by 1-5 digits (RFC 7239 also allows obfuscated `:_port` identifiers). */
function isPort(text: string): boolean {
  return /^:(\d{1,5}|_[A-Za-z0-9._-]+)$/.test(text);
}
