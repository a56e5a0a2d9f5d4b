import { fileNameOf, looksLikeRoute, parseSitePath, SiteFilePath } from './site-path';

function name(raw: string): string {
  const parsed = parseSitePath(raw);
  if (!parsed.ok) throw new Error(`refused ${raw}: ${parsed.reason}`);
  return parsed.name;
}

function refused(raw: string): string {
  const parsed = parseSitePath(raw);
  if (parsed.ok) throw new Error(`accepted ${raw} as ${parsed.name}`);
  return parsed.reason;
}

describe('parseSitePath', () => {
  it('maps the root and directory paths to index.html', () => {
    expect(name('/')).toBe('index.html');
    expect(name('/docs/')).toBe('docs/index.html');
    expect(name('/a/b/c/')).toBe('a/b/c/index.html');
    expect(parseSitePath('/docs/')).toMatchObject({ directory: true, lastSegment: '' });
  });

  it('maps file paths to the object of that name', () => {
    expect(name('/app.css')).toBe('app.css');
    expect(name('/docs/guide.html')).toBe('docs/guide.html');
    expect(parseSitePath('/docs/about')).toMatchObject({
      name: 'docs/about',
      directory: false,
      lastSegment: 'about',
    });
  });

  it('percent-decodes exactly once', () => {
    expect(name('/caf%C3%A9.html')).toBe('café.html');
    expect(name('/a%20b.txt')).toBe('a b.txt');
    // %25 decodes to a literal %, which is not decoded again.
    expect(name('/100%252e.txt')).toBe('100%2e.txt');
    expect(name('/%252e%252e/x')).toBe('%2e%2e/x');
    expect(name('/%E2%9C%93/')).toBe('✓/index.html');
  });

  it('refuses dot segments, raw or encoded', () => {
    for (const raw of [
      '/..',
      '/../x',
      '/a/../b',
      '/./a',
      '/a/.',
      '/%2e%2e/x',
      '/%2E%2E',
      '/a/%2e/b',
      '/.%2e/x',
    ]) {
      expect(refused(raw)).toMatch(/\. or \.\. segment/);
    }
  });

  it('refuses empty segments, raw or encoded', () => {
    for (const raw of ['//', '//etc/passwd', '/a//b', '/a/%2F/b', '/%2F', '/a%2F%2Fb']) {
      expect(refused(raw)).toMatch(/empty segment/);
    }
  });

  it('refuses encoded slashes that produce a dot segment', () => {
    expect(refused('/a%2F..%2Fb')).toMatch(/\. or \.\./);
  });

  it('refuses backslashes, raw or encoded', () => {
    expect(refused('/a%5C..%5Cb')).toMatch(/backslash/);
    expect(refused('/a\\b')).toMatch(/not percent-encoded|backslash/);
  });

  it('refuses NUL and control characters', () => {
    for (const raw of ['/a%00b', '/%0d%0aSet-Cookie:x', '/a%7F', '/a%C2%85', '/a%09b', '/\u0000']) {
      expect(refused(raw)).toMatch(/control|percent-encoded/);
    }
  });

  it('refuses malformed escapes and invalid UTF-8', () => {
    for (const raw of ['/%', '/%zz', '/%C3', '/%C0%AF', '/%ED%A0%80', '/%FF', '/%E2%82']) {
      expect(refused(raw)).toMatch(/malformed escape or is not UTF-8/);
    }
  });

  it('refuses raw characters outside printable ASCII', () => {
    expect(refused('/caf\u00e9.html')).toMatch(/not percent-encoded/);
    expect(refused('/a b')).toMatch(/not percent-encoded/);
  });

  it('refuses paths over 1024 bytes, counting decoded UTF-8 bytes', () => {
    expect(name('/' + 'a'.repeat(1024))).toHaveLength(1024);
    expect(refused('/' + 'a'.repeat(1025))).toMatch(/over 1024 bytes/);
    // 342 x 3-byte characters = 1026 bytes once decoded, though only 342 characters.
    expect(refused('/' + '%E2%9C%93'.repeat(342))).toMatch(/over 1024 bytes/);
    expect(refused('/' + 'a'.repeat(100000))).toMatch(/over 1024 bytes/);
  });

  it('refuses a path that does not start with a slash', () => {
    expect(refused('')).toMatch(/start with/);
    expect(refused('index.html')).toMatch(/start with/);
  });
});

describe('parseSitePath: hidden files', () => {
  const hidden = (raw: string) => {
    const parsed = parseSitePath(raw);
    return !parsed.ok && parsed.hidden === true;
  };

  it('refuses every path with a segment that starts with "." as hidden (answered 404)', () => {
    for (const raw of [
      '/.env',
      '/.well-known/acme-challenge/x',
      '/a/.git/config',
      '/.git/',
      '/docs/.htaccess',
      '/%2eenv',
      '/%2Ewell-known/acme-challenge/x',
      '/a/%2egit/config',
      '/.%77ell-known/x',
    ]) {
      expect([raw, hidden(raw)]).toEqual([raw, true]);
    }
  });

  it('keeps . and .. segments a bad path, and dots inside segments ordinary', () => {
    expect(hidden('/..')).toBe(false);
    expect(refused('/a/%2e%2e/b')).toMatch(/\. or \.\./);
    expect(name('/a./b.c')).toBe('a./b.c');
    expect(name('/a..b')).toBe('a..b');
    expect(name('/well-known/x')).toBe('well-known/x');
    // %252e is the literal text %2e, not a dot.
    expect(name('/%252eenv')).toBe('%2eenv');
  });
});

describe('parseSitePath: .well-known/ names the operator allows', () => {
  const allow = new Set(['.well-known/security.txt', '.well-known/deep/x.json']);

  it('maps exactly the allowed names, however they are spelled in the path', () => {
    expect(parseSitePath('/.well-known/security.txt', allow)).toEqual({
      ok: true,
      name: '.well-known/security.txt',
      directory: false,
      lastSegment: 'security.txt',
    });
    expect(parseSitePath('/%2ewell-known/security.txt', allow)).toMatchObject({
      ok: true,
      name: '.well-known/security.txt',
    });
    expect(parseSitePath('/.well-known/deep/x.json', allow)).toMatchObject({ ok: true });
  });

  it('keeps every other hidden path hidden', () => {
    for (const raw of [
      '/.well-known/security.txt',
      '/.well-known/other.txt',
      '/.well-known/',
      '/.well-known/deep/',
      '/docs/.well-known/security.txt',
      '/.env',
    ]) {
      const withAllow = raw === '/.well-known/security.txt' ? new Set<string>() : allow;
      expect([raw, parseSitePath(raw, withAllow)]).toEqual([
        raw,
        { ok: false, reason: 'path names a hidden file', hidden: true },
      ]);
    }
  });
});

describe('looksLikeRoute', () => {
  const parse = (raw: string) => parseSitePath(raw) as SiteFilePath;

  it('is true when the last segment has no extension', () => {
    expect(looksLikeRoute(parse('/about'))).toBe(true);
    expect(looksLikeRoute(parse('/users/42'))).toBe(true);
    expect(looksLikeRoute(parse('/docs/'))).toBe(true);
    // A leading dot is no extension (such a path is refused as hidden before any lookup).
    const hidden: SiteFilePath = {
      ok: true,
      name: '.hidden',
      directory: false,
      lastSegment: '.hidden',
    };
    expect(looksLikeRoute(hidden)).toBe(true);
  });

  it('is false when the last segment has an extension', () => {
    expect(looksLikeRoute(parse('/logo.png'))).toBe(false);
    expect(looksLikeRoute(parse('/v1.2'))).toBe(false);
    expect(looksLikeRoute(parse('/route.v2/app.js'))).toBe(false);
  });
});

describe('fileNameOf', () => {
  it('is the last segment of the object name', () => {
    expect(fileNameOf('docs/report.pdf')).toBe('report.pdf');
    expect(fileNameOf('index.html')).toBe('index.html');
  });
});
