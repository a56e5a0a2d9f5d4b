import { Keypair } from '@solana/web3.js';
import { labelFromAddress } from '../chain/tape-label';
import { SiteDirectory } from './site-directory';
import { newSiteTestApp, SiteTestApp } from './site-test-app.spec-support';

/**
 * Pinned and alias URLs through the site edge (docs/site.md, "Pinned and alias URLs"): a tape
 * with versions 1 (live at first), 2 and 3 (alias `pr-3`), then a rollback and a promote.
 */
describe('site routes: pinned versions and aliases', () => {
  let t: SiteTestApp;
  let tape: string;
  let label: string;
  const IMMUTABLE = 'public, max-age=31536000, immutable';
  const LIVE = 'public, max-age=60, must-revalidate';

  const get = (url: string, host = '127.0.0.1:8080') =>
    t.inject({ method: 'GET', url, headers: { host } });
  const page = (n: number) => `<h1>version ${n}</h1>`;

  beforeAll(async () => {
    t = await newSiteTestApp({ subdomain_suffix: 'localhost:8080' });
    ({ tape, label } = await t.publish({
      'index.html': page(1),
      'old.html': 'only in 1',
      '404.html': 'missing in 1',
    }));
    await t.publish({ 'index.html': page(2) }, { tape });
    await t.publish({ 'index.html': page(3) }, { tape, alias: 'pr-3' });
    // Live: version 2 (the alias left "/" alone).
  });
  afterAll(() => t.close());

  it('serves the live version at / with the site max-age and no X-Robots-Tag', async () => {
    const res = await get(`/site/${tape}/`);
    expect([res.statusCode, res.body]).toEqual([200, page(2)]);
    expect(res.headers['x-tape-version']).toBe('2');
    expect(res.headers['cache-control']).toBe(LIVE);
    expect(res.headers['x-robots-tag']).toBeUndefined();
  });

  it('serves a kept version at @<n> and v<n>--<label>: immutable, noindex, its own files', async () => {
    for (const [url, host] of [
      [`/site/${tape}@1/`, undefined],
      ['/', `v1--${label}.localhost:8080`],
    ] as const) {
      const res = await get(url, host);
      expect([url, res.statusCode, res.body]).toEqual([url, 200, page(1)]);
      expect(res.headers['x-tape-version']).toBe('1');
      expect(res.headers['cache-control']).toBe(IMMUTABLE);
      expect(res.headers['x-robots-tag']).toBe('noindex');
    }
    expect((await get(`/site/${tape}@1/old.html`)).body).toBe('only in 1');
    // Its own 404.html, cached like its content (immutable), noindex.
    const missing = await get(`/site/${tape}@1/nope.html`);
    expect([missing.statusCode, missing.body]).toEqual([404, 'missing in 1']);
    expect(missing.headers['cache-control']).toBe(IMMUTABLE);
    expect(missing.headers['x-robots-tag']).toBe('noindex');
    // A 304 keeps the headers.
    const etag = (await get(`/site/${tape}@1/`)).headers.etag as string;
    const again = await t.inject({
      method: 'GET',
      url: `/site/${tape}@1/`,
      headers: { host: '127.0.0.1', 'if-none-match': etag },
    });
    expect([again.statusCode, again.headers['x-robots-tag']]).toEqual([304, 'noindex']);
    // Without the slash: a redirect to the pinned root.
    const bare = await get(`/site/${tape}@1`);
    expect([bare.statusCode, bare.headers.location]).toEqual([308, `/site/${tape}@1/`]);
    // The live site does not have version 1's file.
    expect((await get(`/site/${tape}/old.html`)).statusCode).toBe(404);
  });

  it('serves an alias at @<alias> and <alias>--<label> with the live revalidation, noindex', async () => {
    for (const [url, host] of [
      [`/site/${tape}@pr-3/`, undefined],
      ['/', `pr-3--${label}.localhost`],
    ] as const) {
      const res = await get(url, host);
      expect([url, res.statusCode, res.body]).toEqual([url, 200, page(3)]);
      expect(res.headers['x-tape-version']).toBe('3');
      expect(res.headers['cache-control']).toBe(LIVE);
      expect(res.headers['x-robots-tag']).toBe('noindex');
    }
  });

  it('answers 404 version_not_kept for a number or alias the tape does not keep', async () => {
    for (const [url, host] of [
      [`/site/${tape}@4/`, undefined],
      [`/site/${tape}@9007199254740991/x.html`, undefined],
      [`/site/${tape}@pr-9/`, undefined],
      ['/', `v4--${label}.localhost`],
      ['/', `staging--${label}.localhost`],
    ] as const) {
      const res = await get(url, host);
      expect([url, host, res.statusCode]).toEqual([url, host, 404]);
      expect(res.body).toContain('version_not_kept');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-robots-tag']).toBe('noindex');
    }
    // A tape that published nothing keeps no version.
    const empty = await t.addSite({});
    const none = await get(`/site/${empty.tape}@1/`);
    expect([none.statusCode, none.body.includes('version_not_kept')]).toEqual([404, true]);
    // An unknown tape is no site, whatever follows @.
    const unknown = Keypair.generate().publicKey.toBase58();
    expect((await get(`/site/${unknown}@1/`)).body).not.toContain('version_not_kept');
  });

  it('refuses an @ or a --<label> that can name no version (400), never serving the live site', async () => {
    for (const url of [
      `/site/${tape}@/`,
      `/site/${tape}@0/`,
      `/site/${tape}@01/`,
      `/site/${tape}@v1/`,
      `/site/${tape}@PR-3/`,
      `/site/${tape}@pr--3/`,
      `/site/${tape}@-pr/`,
      `/site/${tape}@${'a'.repeat(25)}/`,
      `/site/${tape}@9007199254740992/`,
      `/site/${tape}@${'9'.repeat(400)}/`,
      `/site/${tape}@%70r-3/`,
      `/site/${tape}@1@2/`,
    ]) {
      const res = await get(url);
      expect([url, res.statusCode]).toEqual([url, 400]);
      expect(res.headers['x-robots-tag']).toBe('noindex');
      expect(res.headers['x-tape-version']).toBeUndefined();
    }
    for (const host of [`v0--${label}.localhost`, `v01--${label}.localhost`]) {
      const res = await get('/', host);
      expect([host, res.statusCode]).toEqual([host, 400]);
    }
    // A name that is no label, with or without a selector: no such site.
    expect((await get('/', `v1--${label.slice(0, 51)}1.localhost`)).statusCode).toBe(404);
    // A bad address before @ is no site, as without @.
    expect((await get('/site/not-a-tape@1/')).statusCode).toBe(404);
  });

  it('follows a rollback and a promote as soon as the pointer moves, pinned URLs unchanged', async () => {
    const directory = t.app.get(SiteDirectory);
    // Rollback to 1.
    directory.pointerChanged(tape, t.setCurrent(tape, 1));
    await eventually(async () => (await get(`/site/${tape}/`)).body === page(1));
    expect((await get('/', `${labelFromAddress(tape)}.localhost`)).headers['x-tape-version']).toBe(
      '1',
    );
    expect((await get(`/site/${tape}@2/`)).body).toBe(page(2));
    // Promote the alias's version.
    directory.pointerChanged(tape, t.setCurrent(tape, 3));
    await eventually(async () => (await get(`/site/${tape}/`)).body === page(3));
    const alias = await get(`/site/${tape}@pr-3/`);
    expect([alias.body, alias.headers['x-tape-version']]).toEqual([page(3), '3']);
  });
});

async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('never happened');
}
