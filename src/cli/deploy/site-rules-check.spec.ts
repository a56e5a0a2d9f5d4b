import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../cli-error';
import { checkSiteRules, pagePath } from './site-rules-check';
import { SiteFile } from './site-scanner';

function siteOf(files: Record<string, string>): { files: SiteFile[]; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'rules-check-'));
  const list = Object.entries(files).map(([name, text]) => {
    const path = join(dir, name.replace(/\//g, '_'));
    writeFileSync(path, text);
    return { name, path, size: Buffer.byteLength(text) } as SiteFile;
  });
  return { files: list, done: () => rmSync(dir, { recursive: true, force: true }) };
}

const SCRIPT = 'document.documentElement.dataset.theme = "dark";';
const HASH = `'sha256-${createHash('sha256').update(SCRIPT).digest('base64')}'`;
const PAGE = [
  '<!doctype html><html><head>',
  `<script>${SCRIPT}</script>`,
  '<script type="application/ld+json">{"a":1}</script>',
  '<script src="/app.js"></script>',
  '<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Inter">',
  '<style>@font-face{font-family:X;src:url(https://fonts.example/x.woff2)}</style>',
  '</head></html>',
].join('\n');

describe('checkSiteRules', () => {
  it('warns for each blocked inline script, stylesheet and font, naming the _headers line', async () => {
    const site = siteOf({ 'docs/index.html': PAGE });
    try {
      const warnings = await checkSiteRules(site.files);
      expect(warnings).toHaveLength(4);
      expect(warnings[0]).toBe(
        `warning: docs/index.html: an inline script (line 2) is blocked by the site's Content-Security-Policy; to allow it, add to _headers:\n  /*\n    Content-Security-Policy: script-src ${HASH}`,
      );
      expect(warnings[1]).toContain('style-src https://fonts.googleapis.com');
      expect(warnings[2]).toContain('font-src https://fonts.gstatic.com');
      expect(warnings[3]).toContain('font-src https://fonts.example');
    } finally {
      site.done();
    }
  });

  it('is quiet once _headers allows them, and names the matching rule pattern otherwise', async () => {
    const headers = [
      '/docs/*',
      `  Content-Security-Policy: script-src ${HASH}; style-src https://fonts.googleapis.com`,
      '  Content-Security-Policy: font-src https://fonts.gstatic.com https://fonts.example',
    ].join('\n');
    const site = siteOf({ 'docs/index.html': PAGE, _headers: headers, 'index.html': PAGE });
    try {
      const warnings = await checkSiteRules(site.files);
      // docs/ is allowed; the root page is not, and its warnings name /*.
      expect(warnings.filter((w) => w.includes('docs/index.html'))).toEqual([]);
      expect(warnings.filter((w) => w.startsWith('warning: index.html'))).toHaveLength(4);
    } finally {
      site.done();
    }
  });

  it('stops the deploy with one line per problem of the rules files', async () => {
    const site = siteOf({
      'index.html': '<h1>x</h1>',
      _redirects: '/a /b 301\n/c https://evil.example/ 302\n',
      _headers: '/*\n  Set-Cookie: a=b\n  Content-Security-Policy: default-src *\n',
    });
    try {
      const refused = checkSiteRules(site.files);
      await expect(refused).rejects.toThrow(CliError);
      await expect(refused).rejects.toThrow(
        /nothing was sent:\n_redirects:2: "https:\/\/evil.example\/" is another origin.*\n_headers:2: a site can never set cookies\n_headers:3: Content-Security-Policy: default-src cannot be changed/,
      );
    } finally {
      site.done();
    }
  });

  it('visits index pages at their directory', () => {
    expect(pagePath('index.html')).toBe('/');
    expect(pagePath('a/index.html')).toBe('/a/');
    expect(pagePath('a/b.html')).toBe('/a/b.html');
  });
});
