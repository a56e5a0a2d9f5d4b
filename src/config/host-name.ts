/**
 * Host hygiene: the one place where the text of a `Host` header (HTTP/1.1) or `:authority`
 * (HTTP/2) becomes a host name the gateway routes on. Everything downstream (the operator map,
 * subdomain labels, DNS lookups) only ever sees names that passed these rules:
 *
 * - at most MAX_RAW_HOST_LENGTH characters of input, printable ASCII only (no NUL, controls,
 *   spaces or non-ASCII: internationalised names arrive as punycode `xn--…`);
 * - lower-cased; an optional `:port` (1–65535, digits only) is split off; one trailing dot
 *   (the fully-qualified form) is removed;
 * - IP literals are refused: `[v6]` in brackets, bare v6 (several colons) and anything whose
 *   last label is numeric (`1.2.3.4`, `127.1`, `0x7f.1`: WHATWG URL parsers read those as IPv4);
 * - labels are LDH (letters, digits, hyphen), 1–63 characters, not starting or ending with a
 *   hyphen; the whole name is at most 253 characters. Underscores are refused: no certificate
 *   authority may issue for them, and the `_tape.` prefix of the binding record must never be
 *   a site host itself.
 */

export const MAX_RAW_HOST_LENGTH = 300;
const MAX_NAME_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;

const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/;
const PORT = /^[0-9]{1,5}$/;

export interface HostName {
  kind: 'host';
  /** Lower-case, no port, no trailing dot. */
  name: string;
  /** The port given with the host, when there was one. Routing ignores it. */
  port?: number;
}

export interface InvalidHost {
  kind: 'invalid';
  reason: string;
  /**
   * The name as far as it can be read (lower case, without port, brackets or trailing dot), for
   * routing a host that is no valid site host: an IP literal or a name with an underscore may
   * still be one of the gateway's own names. Null when nothing host-like is left.
   */
  name: string | null;
}

export type ParsedHost = HostName | InvalidHost;

/**
 * Parses the raw header value (Node gives an array for repeated headers): the only parser of a
 * Host header in the gateway. Its callers route on the answer (src/domains/host-router.ts).
 */
export function parseHost(raw: string | string[] | undefined): ParsedHost {
  if (Array.isArray(raw)) {
    if (raw.length !== 1) return invalid('more than one host header', null);
    raw = raw[0];
  }
  if (raw === undefined || raw === '') return invalid('no host', null);
  if (raw.length > MAX_RAW_HOST_LENGTH) return invalid('host too long', null);
  if (!PRINTABLE_ASCII.test(raw)) {
    return invalid('host has characters outside printable ASCII', null);
  }

  const text = raw.toLowerCase();
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    return invalid('IP literals are not site hosts', close > 1 ? text.slice(1, close) : null);
  }

  let hostPart = text;
  let port: number | undefined;
  const colon = text.indexOf(':');
  if (colon >= 0) {
    // Several colons: a bare IPv6 address (no port can be told apart).
    if (text.indexOf(':', colon + 1) >= 0) {
      return invalid('IP literals are not site hosts', withoutDot(text));
    }
    hostPart = text.slice(0, colon);
    const portText = text.slice(colon + 1);
    const value = PORT.test(portText) ? Number(portText) : 0;
    if (value < 1 || value > 65535) return invalid('invalid port', withoutDot(hostPart));
    port = value;
  }

  const name = validateName(hostPart);
  if (typeof name !== 'string') return { ...name, name: withoutDot(hostPart) };
  return port === undefined ? { kind: 'host', name } : { kind: 'host', name, port };
}

/**
 * Validates a bare host name (no port), as found in configuration; returns the normalised
 * name or the reason it is not one.
 */
export function validateName(text: string): string | Omit<InvalidHost, 'name'> {
  let name = text.toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name === '') return refused('empty host name');
  if (name.length > MAX_NAME_LENGTH) return refused('host name over 253 characters');
  const labels = name.split('.');
  for (const label of labels) {
    if (label === '') return refused('empty label');
    if (label.length > MAX_LABEL_LENGTH) return refused('label over 63 characters');
    if (!LDH_LABEL.test(label)) return refused('label is not letters, digits and inner hyphens');
  }
  if (NUMERIC_LABEL.test(labels[labels.length - 1])) {
    return refused('IP literals are not site hosts');
  }
  return name;
}

function invalid(reason: string, name: string | null): InvalidHost {
  return { kind: 'invalid', reason, name };
}

function refused(reason: string): Omit<InvalidHost, 'name'> {
  return { kind: 'invalid', reason };
}

function withoutDot(text: string): string | null {
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  return name === '' ? null : name;
}
