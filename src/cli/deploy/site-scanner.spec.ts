import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError } from '../cli-error';
import { contentTypeOf } from '../../versions/content-type';
import { scanSite } from './site-scanner';

function site(files: Record<string, string | Buffer>): string {
  const root = mkdtempSync(join(tmpdir(), 'tape-scan-'));
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), body);
  }
  return root;
}

describe('scanSite', () => {
  const roots: string[] = [];
  const make = (files: Record<string, string | Buffer>) => {
    const root = site(files);
    roots.push(root);
    return root;
  };
  afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

  it('names every visible file by its relative path with / separators, in byte order', async () => {
    const root = make({
      'index.html': '<h1>hi</h1>',
      'docs/index.html': 'docs',
      'docs/guide/intro.md': '# intro',
      'app.css': 'body{}',
      'images/logo.png': Buffer.from([0x89, 0x50]),
    });
    const scanned = await scanSite(join(root, 'index.html'));
    expect(scanned.root).toBe(root);
    expect(scanned.files.map((f) => f.name)).toEqual([
      'app.css',
      'docs/guide/intro.md',
      'docs/index.html',
      'images/logo.png',
      'index.html',
    ]);
    expect(scanned.files.find((f) => f.name === 'docs/index.html')).toMatchObject({
      path: join(root, 'docs', 'index.html'),
      size: 4,
      contentType: 'text/html; charset=utf-8',
    });
  });

  it('skips hidden files and directories at every depth, .well-known included', async () => {
    const root = make({
      'index.html': 'x',
      '.env': 'SECRET=1',
      '.well-known/security.txt': 'contact',
      '.git/config': '[core]',
      'docs/.DS_Store': 'junk',
      'docs/.hidden/inner.html': 'no',
      'docs/visible.html': 'yes',
    });
    const scanned = await scanSite(join(root, 'index.html'));
    expect(scanned.files.map((f) => f.name)).toEqual(['docs/visible.html', 'index.html']);
    expect(scanned.hidden.sort()).toEqual([
      '.env',
      '.git/',
      '.well-known/',
      'docs/.DS_Store',
      'docs/.hidden/',
    ]);
  });

  it('keeps names with spaces and non-ASCII characters exactly as on disk', async () => {
    const nfd = 'cafe\u0301.html';
    const root = make({
      'index.html': 'x',
      'my page.html': 'space',
      'ünïcödé/日本語.txt': 'jp',
      [nfd]: 'decomposed',
    });
    const names = (await scanSite(join(root, 'index.html'))).files.map((f) => f.name);
    expect(names).toContain('my page.html');
    expect(names).toContain('ünïcödé/日本語.txt');
    // Not normalised to NFC: a browser asking for the on-disk spelling must find it.
    expect(names).toContain(nfd);
  });

  it('rejects a visible symlink, naming it, and counts the others', async () => {
    const root = make({ 'index.html': 'x', 'real.txt': 'r', 'sub/a.txt': 'a' });
    symlinkSync(join(root, 'real.txt'), join(root, 'link.txt'));
    symlinkSync('/etc', join(root, 'sub', 'etc'));
    await expect(scanSite(join(root, 'index.html'))).rejects.toThrow(
      'symlink not allowed: link.txt (and 1 more); nothing was uploaded',
    );
  });

  it('ignores a hidden symlink (hidden things are never looked at)', async () => {
    const root = make({ 'index.html': 'x' });
    symlinkSync('/etc', join(root, '.config'));
    expect((await scanSite(join(root, 'index.html'))).files.map((f) => f.name)).toEqual([
      'index.html',
    ]);
  });

  it('takes the site directory itself or the path of its index.html', async () => {
    const root = make({ 'index.html': 'x', 'a.css': 'y' });
    const byDir = await scanSite(root);
    const byFile = await scanSite(join(root, 'index.html'));
    expect(byDir.root).toBe(root);
    expect(byDir.files.map((f) => f.name)).toEqual(['a.css', 'index.html']);
    expect(byFile).toEqual(byDir);
    expect((await scanSite(`${root}/`)).root).toBe(root);
  });

  it('says what is wrong with a path that is not a site', async () => {
    const root = make({ 'index.html': 'x', 'home.html': 'y' });
    await expect(scanSite(join(root, 'home.html'))).rejects.toThrow(
      `${join(root, 'home.html')} is not a site directory or its index.html`,
    );
    await expect(scanSite(join(root, 'nope'))).rejects.toThrow(
      `no such file or directory: ${join(root, 'nope')} (give the site's directory or its index.html)`,
    );
    await expect(scanSite(join(root, 'nope', 'index.html'))).rejects.toThrow(
      /^no such file or directory: /,
    );
    const empty = make({ 'about.html': 'x' });
    await expect(scanSite(empty)).rejects.toThrow(
      `no index.html in ${empty} (a site directory has one at its top)`,
    );
    const linked = make({ 'target.html': 'x' });
    symlinkSync(join(linked, 'target.html'), join(linked, 'index.html'));
    await expect(scanSite(join(linked, 'index.html'))).rejects.toThrow(
      'symlink not allowed: index.html',
    );
    await expect(scanSite(linked)).rejects.toThrow('symlink not allowed: index.html');
    const dir = make({ 'index.html/inner.txt': 'x' });
    await expect(scanSite(join(dir, 'index.html'))).rejects.toThrow(/not a regular file/);
    await expect(scanSite(dir)).rejects.toThrow(CliError);
  });

  it("lists the root's .well-known/ files apart, their problems beside them", async () => {
    const root = make({
      'index.html': 'x',
      '.well-known/security.txt': 'Contact: mailto:a@b.c',
      '.well-known/deep/thing.json': '{}',
      '.well-known/.secret': 'no',
      'docs/.well-known/other.txt': 'not the root one',
    });
    symlinkSync('/etc/passwd', join(root, '.well-known', 'passwd'));
    const scanned = await scanSite(root);
    expect(scanned.files.map((f) => f.name)).toEqual(['index.html']);
    expect(scanned.wellKnown).toEqual([
      expect.objectContaining({ name: '.well-known/deep/thing.json', size: 2 }),
      { name: '.well-known/passwd', problem: 'symlink not allowed: .well-known/passwd' },
      expect.objectContaining({
        name: '.well-known/security.txt',
        path: join(root, '.well-known', 'security.txt'),
        contentType: 'text/plain; charset=utf-8',
      }),
    ]);
    expect((await scanSite(make({ 'index.html': 'x' }))).wellKnown).toEqual([]);
  });

  it('rejects file names that are not UTF-8 or that the chain cannot hold', async () => {
    const root = make({ 'index.html': 'x' });
    writeFileSync(
      Buffer.concat([Buffer.from(root + '/bad-'), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')]),
      'x',
    );
    await expect(scanSite(join(root, 'index.html'))).rejects.toThrow(/not valid UTF-8/);
    const deep = make({ 'index.html': 'x' });
    let path = deep;
    for (let i = 0; i < 6; i++) {
      path = join(path, 'd'.repeat(200));
      mkdirSync(path);
    }
    writeFileSync(join(path, 'f.txt'), 'x');
    await expect(scanSite(join(deep, 'index.html'))).rejects.toThrow(/name longer than 1024 bytes/);
    const control = make({ 'index.html': 'x', 'a\nb.html': 'x' });
    await expect(scanSite(join(control, 'index.html'))).rejects.toThrow(
      /control character: a\\x0ab.html/,
    );
  });
});

describe('contentTypeOf', () => {
  it.each([
    ['index.html', 'text/html; charset=utf-8'],
    ['app.js', 'text/javascript; charset=utf-8'],
    ['data.json', 'application/json; charset=utf-8'],
    ['style.CSS', 'text/css; charset=utf-8'],
    ['logo.svg', 'image/svg+xml'],
    ['font.woff2', 'font/woff2'],
    ['module.wasm', 'application/wasm'],
    ['README', 'application/octet-stream'],
    ['archive.unknownext', 'application/octet-stream'],
    ['weird.tar.gz', 'application/gzip'],
  ])('%s -> %s', (name, type) => {
    expect(contentTypeOf(name)).toBe(type);
  });
});
