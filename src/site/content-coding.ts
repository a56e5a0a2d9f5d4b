/**
 * Compression of site responses: which content types are worth compressing, and which coding a
 * request's Accept-Encoding picks. Brotli is preferred over gzip at equal quality values; a
 * coding with `q=0` is refused; `*` stands for any coding not named.
 */

export type Coding = 'br' | 'gzip';

/** Smaller bodies gain nothing once headers and framing are counted. */
export const MIN_COMPRESS_BYTES = 256;

const COMPRESSIBLE_APPLICATION = new Set([
  'application/javascript',
  'application/ecmascript',
  'application/json',
  'application/ld+json',
  'application/manifest+json',
  'application/xml',
  'application/xhtml+xml',
  'application/rss+xml',
  'application/atom+xml',
  'application/wasm',
  'application/x-javascript',
  'application/graphql-response+json',
  'application/geo+json',
  'image/svg+xml',
  'image/x-icon',
  'image/vnd.microsoft.icon',
  'image/bmp',
  'font/ttf',
  'font/otf',
  'application/vnd.ms-fontobject',
]);

/** Text, JSON, XML, scripts, SVG and uncompressed fonts; not images, archives, woff2 or media. */
export function isCompressible(contentType: string): boolean {
  const semicolon = contentType.indexOf(';');
  const essence = (semicolon < 0 ? contentType : contentType.slice(0, semicolon))
    .trim()
    .toLowerCase();
  if (essence.startsWith('text/')) return true;
  if (essence.endsWith('+json') || essence.endsWith('+xml')) return true;
  return COMPRESSIBLE_APPLICATION.has(essence);
}

/** Distinct Accept-Encoding values are few (one per browser family): remember the answers. */
const MEMO_LIMIT = 256;
const memo = new Map<string, Coding | null>();

/** The coding to answer with, or null for identity. */
export function negotiateCoding(acceptEncoding: string | undefined): Coding | null {
  if (acceptEncoding === undefined || acceptEncoding === '') return null;
  const known = memo.get(acceptEncoding);
  if (known !== undefined) return known;
  const chosen = parseAcceptEncoding(acceptEncoding);
  if (memo.size >= MEMO_LIMIT) memo.clear();
  if (acceptEncoding.length <= 200) memo.set(acceptEncoding, chosen);
  return chosen;
}

function parseAcceptEncoding(header: string): Coding | null {
  let br: number | undefined;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = rawName.trim().toLowerCase();
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=');
      if (key?.trim().toLowerCase() === 'q') {
        const parsed = Number(value?.trim());
        q = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 0;
      }
    }
    if (name === 'br') br = q;
    else if (name === 'gzip' || name === 'x-gzip') gzip = q;
    else if (name === '*') any = q;
  }
  const brQ = br ?? any ?? 0;
  const gzipQ = gzip ?? any ?? 0;
  if (brQ > 0 && brQ >= gzipQ) return 'br';
  if (gzipQ > 0) return 'gzip';
  return null;
}
