import { createHash, randomBytes } from 'node:crypto';

/**
 * A site as bundlers make them, for atomicity tests and the deploy benchmark: every asset is
 * named by its content hash (`assets/3/asset-307.<12 hex digits>.woff2`) and `index.html` names
 * every asset with the SHA-256 of its bytes (`<li data-sha256="…"><a href="/name">`), so a page
 * load can tell whether each asset it fetched is the one its page was built with. Every byte
 * changes from one `seed` to the next, so a redeploy changes every file: index.html in place,
 * each asset under a new name (the previous version's assets stay, as a deploy without
 * `--prune` keeps them, for pages loaded before the switch).
 *
 * Sizes are mixed as on real sites: most assets small (up to 16 KiB: packed, docs/versions.md
 * "Packs"), every `largeEvery`-th one large (a track of its own), the large ones sharing what
 * the small ones leave of `totalBytes`.
 */
export interface HashedSiteOptions {
  /** Files in all, index.html included. */
  count: number;
  totalBytes: number;
  /** Every n-th asset is large (not packed). */
  largeEvery?: number;
  seed: string;
}

const EXTS = ['css', 'js', 'png', 'woff2', 'json', 'svg', 'txt', 'webp'];
const SMALL_MAX = 16 * 1024;

export interface HashedAsset {
  name: string;
  sha256: string;
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function hashedSite(options: HashedSiteOptions): Record<string, Buffer> {
  const largeEvery = options.largeEvery ?? 10;
  const assets = options.count - 1;
  const stems = Array.from(
    { length: assets },
    (_, i) => `assets/${Math.floor(i / 100)}/asset-${i}`,
  );
  const isLarge = (i: number) => i % largeEvery === largeEvery - 1;
  // Small sizes from 256 B to 16 KiB, spread by index (the same for every seed).
  const smallSize = (i: number) => 256 + ((i * 2654435761) % (SMALL_MAX - 256));
  const smallTotal = stems.reduce((sum, _, i) => sum + (isLarge(i) ? 0 : smallSize(i)), 0);
  const largeCount = stems.filter((_, i) => isLarge(i)).length;
  const largeSize = Math.max(
    SMALL_MAX * 5,
    Math.floor((options.totalBytes - smallTotal) / Math.max(1, largeCount)),
  );
  const files: Record<string, Buffer> = {};
  const items: string[] = [];
  stems.forEach((stem, i) => {
    // A readable prefix (the seed), then random bytes: every file differs between seeds.
    const size = isLarge(i) ? largeSize : smallSize(i);
    const head = Buffer.from(`${options.seed}:${stem}\n`);
    const bytes = Buffer.concat([head, randomBytes(Math.max(0, size - head.length))]);
    const sha256 = sha256Hex(bytes);
    const name = `${stem}.${sha256.slice(0, 12)}.${EXTS[i % EXTS.length]}`;
    files[name] = bytes;
    items.push(`<li data-sha256="${sha256}"><a href="/${name}">${name}</a></li>`);
  });
  files['index.html'] = Buffer.from(
    `<!doctype html><title>site ${options.seed}</title>\n<ul>\n${items.join('\n')}\n</ul>\n`,
  );
  return files;
}

/** The assets an index.html of `hashedSite` names, with the hash of each. */
export function assetsNamed(index: string): HashedAsset[] {
  return [...index.matchAll(/<li data-sha256="([0-9a-f]{64})"><a href="\/([^"]+)">/g)].map((m) => ({
    name: m[2],
    sha256: m[1],
  }));
}

/** The seed an index.html of `hashedSite` was made with. */
export function seedOf(index: string): string | undefined {
  return /<title>site ([^<]+)<\/title>/.exec(index)?.[1];
}
