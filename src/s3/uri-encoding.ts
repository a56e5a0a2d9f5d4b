/**
 * Percent-encoding as AWS defines it for SigV4 and for `encoding-type=url` listings: every byte
 * of the UTF-8 form is encoded as `%XX` (upper-case hex) except the unreserved characters
 * `A-Z a-z 0-9 - _ . ~` (and `/` where the caller keeps it). JavaScript's encodeURIComponent
 * leaves `!'()*` alone, which would break signatures, so this is done byte by byte.
 */
const UNRESERVED = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  const ch = String.fromCharCode(c);
  UNRESERVED[c] = /[A-Za-z0-9\-_.~]/.test(ch) ? 1 : 0;
}
const HEX = '0123456789ABCDEF';
const SLASH = 0x2f;

export function awsEncodeBytes(bytes: Uint8Array, keepSlash: boolean): string {
  let out = '';
  for (const b of bytes) {
    if (UNRESERVED[b] === 1 || (keepSlash && b === SLASH)) out += String.fromCharCode(b);
    else out += '%' + HEX[b >> 4] + HEX[b & 15];
  }
  return out;
}

export function awsUriEncode(text: string, keepSlash = false): string {
  return awsEncodeBytes(Buffer.from(text, 'utf8'), keepSlash);
}

/**
 * Percent-decodes to bytes without interpreting `+` (in S3 paths and in SigV4 canonical form a
 * plus is a plus). Returns null on a malformed escape such as `%G1` or a trailing `%`.
 */
export function percentDecodeBytes(text: string): Buffer | null {
  if (!text.includes('%')) return Buffer.from(text, 'utf8');
  const out: number[] = [];
  const raw = Buffer.from(text, 'utf8');
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i];
    if (b !== 0x25) {
      out.push(b);
      continue;
    }
    const hi = hexValue(raw[i + 1]);
    const lo = hexValue(raw[i + 2]);
    if (hi < 0 || lo < 0) return null;
    out.push((hi << 4) | lo);
    i += 2;
  }
  return Buffer.from(out);
}

/** Percent-decodes to text; null when an escape is malformed or the bytes are not UTF-8. */
export function percentDecodeUtf8(text: string): string | null {
  const bytes = percentDecodeBytes(text);
  if (bytes === null) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

function hexValue(b: number | undefined): number {
  if (b === undefined) return -1;
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  return -1;
}
