import { randomBytes } from 'node:crypto';
import { SiteDirectory, SiteSnapshot } from './site-directory';
import { buildSitePolicy } from './site-policy';
import { parseOriginList } from './origin';
import { SiteResponder } from './site-responder';
import { routeSitePath } from './site-routing';
import { SiteObject } from './site-source';
import { SiteService } from './site.service';

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
const route = (path: string, spa = false) => routeSitePath(site, spa, path);
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
    expect(nameOf('/a/../b')).toBe('bad-path');
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
    expect(routeSitePath(objects('index.html'), false, '/nope')).toEqual({ kind: 'not-found' });
  });
});

describe('SiteService.route memo', () => {
  it('remembers named objects only, so random paths cannot grow memory', () => {
    const service = new SiteService({} as SiteDirectory, {} as SiteResponder);
    const snapshot: SiteSnapshot = {
      tape: 't',
      status: 'active',
      objects: site,
      policy: buildSitePolicy(
        {
          spaFallback: true,
          maxAgeSecs: 60,
          corsOrigins: parseOriginList([], false),
          connectOrigins: parseOriginList([], false),
        },
        {},
      ),
      expiresAt: Infinity,
      prepared: new Map(),
      routes: new Map(),
    };
    for (let i = 0; i < 1000; i++) service.route(snapshot, `/random/${i}`);
    for (let i = 0; i < 1000; i++) service.route(snapshot, `/missing-${i}.png`);
    expect(snapshot.routes.size).toBe(0);
    expect(service.route(snapshot, '/app.js')).toBe(service.route(snapshot, '/app.js'));
    service.route(snapshot, '/docs');
    service.route(snapshot, '/%61pp.js');
    expect(snapshot.routes.size).toBe(2);
  });
});
