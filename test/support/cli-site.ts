import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A site directory on disk for deploy tests: `files` maps relative names to contents. */
export function writeSite(
  files: Record<string, string | Buffer>,
  root = mkdtempSync(join(tmpdir(), 'tape-site-')),
): string {
  for (const [name, body] of Object.entries(files)) {
    const path = join(root, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, body);
  }
  return root;
}

/**
 * A generated site of `count` files totalling about `totalBytes`, spread over nested
 * directories with a mix of extensions (deterministic bytes per name and `seed`).
 */
export function generateSite(
  count: number,
  totalBytes: number,
  seed = 'v1',
): Record<string, Buffer> {
  const files: Record<string, Buffer> = {};
  const per = Math.max(1, Math.floor(totalBytes / count));
  const exts = ['html', 'css', 'js', 'json', 'svg', 'txt', 'png', 'woff2'];
  files['index.html'] = Buffer.from(
    `<!doctype html><title>generated ${seed}</title><h1>${count} files</h1>`,
  );
  for (let i = 1; i < count; i++) {
    const name = `section-${i % 20}/page-${Math.floor(i / 20) % 10}/file-${i}.${exts[i % exts.length]}`;
    const body = Buffer.alloc(per);
    const tag = Buffer.from(`${seed}:${name}:`);
    for (let o = 0; o < per; o += tag.length) tag.copy(body, o, 0, Math.min(tag.length, per - o));
    files[name] = body;
  }
  return files;
}

export function removeSite(root: string): void {
  rmSync(root, { recursive: true, force: true });
}
