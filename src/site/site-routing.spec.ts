import { randomBytes } from 'node:crypto';
import { parseSitePath, SiteFilePath } from './site-path';
import { namesOfPath, routeSitePath, SiteTarget } from './site-routing';
import { SiteObject } from './site-source';

function objects(...names: string[]): Map<string, SiteObject> {
  return new Map(
    names.map((name) => {
      const commitment = randomBytes(32);
      return [
        name,
        {
          name,
          kind: 'blob',
          commitment,
          commitmentHex: commitment.toString('hex'),
          size: 1,
          contentType: 'text/html',
        },
      ];
    }),
  );
}

const site = objects(
  'index.html',
  'app.js',
  'docs/index.html',
  'about.html',
  '404.html',
  '_site.json',
);

function parsed(rawPath: string): SiteFilePath {
  const path = parseSitePath(rawPath);
  if (!path.ok) throw new Error(`refused: ${rawPath}`);
  return path;
}

/** Routes over `objects`, checking that no name outside `namesOfPath` is looked at. */
function routeIn(objects: Map<string, SiteObject>, rawPath: string, spa = false): SiteTarget {
  const path = parsed(rawPath);
  const allowed = new Set(namesOfPath(path, spa));
  return routeSitePath(
    (name) => {
      if (!allowed.has(name)) throw new Error(`${rawPath} looked at ${name}`);
      return objects.get(name);
    },
    spa,
    path,
  );
}
const route = (path: string, spa = false) => routeIn(site, path, spa);
const nameOf = (path: string, spa = false) => {
  const target = route(path, spa);
  return target.kind === 'object' ? `${target.status} ${target.object.name}` : target.kind;
};

describe('routeSitePath', () => {
  it('follows the mapping rules in order', () => {
    expect(nameOf('/')).toBe('200 index.html');
    expect(nameOf('/app.js')).toBe('200 app.js');
    expect(nameOf('/docs/')).toBe('200 docs/index.html');
    expect(nameOf('/docs')).toBe('add-slash');
    expect(nameOf('/about')).toBe('200 about.html');
    expect(nameOf('/about/')).toBe('404 404.html');
    expect(nameOf('/_site.json')).toBe('404 404.html');
    expect(nameOf('/missing.png')).toBe('404 404.html');
    expect(nameOf('/404.html')).toBe('200 404.html');
  });

  it('falls back to index.html for route-looking paths only when asked', () => {
    expect(nameOf('/users/42', true)).toBe('200 index.html');
    expect(nameOf('/users/42/', true)).toBe('200 index.html');
    expect(nameOf('/missing.png', true)).toBe('404 404.html');
    expect(nameOf('/_site.json', true)).toBe('404 404.html');
  });

  it('says which answers are the named object and which are fallbacks', () => {
    expect(route('/app.js')).toMatchObject({ named: true });
    expect(route('/about')).toMatchObject({ named: true });
    expect(route('/users/1', true)).toMatchObject({ named: false });
    expect(route('/nope')).toMatchObject({ named: false });
  });

  it('uses the built-in page when there is no 404.html', () => {
    expect(routeIn(objects('index.html'), '/nope')).toEqual({ kind: 'not-found' });
  });
});

describe('namesOfPath', () => {
  const names = (rawPath: string, spa = false) => namesOfPath(parsed(rawPath), spa);

  it('lists the names one path may need, for one read', () => {
    expect(names('/')).toEqual(['index.html', '404.html']);
    expect(names('/app.js')).toEqual(['app.js', 'app.js/index.html', '404.html']);
    expect(names('/docs/')).toEqual(['docs/index.html', '404.html']);
    // The directory redirect needs docs/index.html; `/docs` may also be docs.html.
    expect(names('/docs')).toEqual(['docs', 'docs/index.html', 'docs.html', '404.html']);
    expect(names('/_site.json')).toEqual(['404.html']);
    expect(names('/404.html')).toEqual(['404.html', '404.html/index.html']);
  });

  it('adds index.html for route-looking paths when the fallback is on', () => {
    expect(names('/users/42', true)).toEqual([
      'users/42',
      'users/42/index.html',
      'users/42.html',
      'index.html',
      '404.html',
    ]);
    expect(names('/', true)).toEqual(['index.html', '404.html']);
    expect(names('/logo.png', true)).toEqual(['logo.png', 'logo.png/index.html', '404.html']);
  });

  it('covers every name the rules look at, whatever the site holds', () => {
    const paths = [
      '/',
      '/a',
      '/a/',
      '/a.b',
      '/a/b.html',
      '/_site.json',
      '/404.html',
      '/index.html',
    ];
    const everything = objects(
      ...paths.flatMap((p) => namesOfPath(parsed(p), true)),
      'a.html',
      'a/index.html',
    );
    for (const held of [everything, objects(), objects('404.html'), objects('index.html')]) {
      for (const p of paths)
        for (const spa of [false, true]) expect(() => routeIn(held, p, spa)).not.toThrow();
    }
  });
});
