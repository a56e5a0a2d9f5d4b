import { TapeAlias } from '../../chain/account-layouts';
import { compileSiteRules, encodeSiteRules } from '../../versions/rules/site-rules';
import { BuiltVersion, buildVersion } from '../../versions/version-builder';
import { proofEntry } from '../version-proofs';
import { chunkHashesOf, recordedProof, SiteFiles, TAPE, tapeAccount } from './proofs.spec-support';
import {
  ProofSelector,
  readTapePointer,
  SiteProofTarget,
  TapeProof,
  verifyAnswer,
  VerifyInput,
} from './tape-verifier';
import { expectRefused, sha256 } from './verdicts.spec-support';

/** Pinned and alias answers, and answers a site's `_redirects` decides (docs/verify.md). */

const REDIRECTS = [
  '/old /new 301',
  '/blog/:slug /posts/:slug 302',
  '/app/* /app/index.html 200',
  '/removed /gone.html 410',
  '/shadow.html /elsewhere 301',
  '/forced.html /index.html 200!',
  '/missing /nope.html 200',
].join('\n');

function site(revision: string, withRules: boolean, redirects = REDIRECTS) {
  const files = new SiteFiles();
  // Enough names for branch nodes: rule checks look names up through them.
  for (let i = 0; i < 1200; i++) files.add(`pages/p-${i}.html`, Buffer.from(`page ${i}`));
  for (const name of ['index.html', '404.html', 'app/index.html', 'gone.html']) {
    files.add(name, Buffer.from(`${name}${revision}`));
  }
  files.add('shadow.html', Buffer.from('a file shadowing a rule'));
  files.add('forced.html', Buffer.from('a file a forced rule hides'));
  const rules = withRules
    ? encodeSiteRules(compileSiteRules({ redirects: Buffer.from(redirects) }))
    : Buffer.alloc(0);
  return { version: buildVersion(files.entries, Buffer.alloc(0), rules), bytes: files.bytes };
}

type Site = ReturnType<typeof site>;

/** The tape at version `current`, keeping `kept` as versions 1, 2, … */
function account(kept: BuiltVersion[], current: number, aliases: TapeAlias[] = []) {
  const history = kept.map((v, i): [number, BuiltVersion] => [i + 1, v]);
  return tapeAccount(7, current, history, aliases);
}

/**
 * A proof as the gateway builds it: every name in `lookups` looked up with a recording reader
 * (so the nodes a verifier needs to see a name present or absent are in it), then the file.
 */
function proofOf(
  s: Site,
  version: number,
  target: SiteProofTarget,
  lookups: string[],
  selector?: ProofSelector,
): Promise<TapeProof> {
  return recordedProof(s.version, { version, target, selector }, async (reader) => {
    for (const name of lookups) await reader.lookupName(s.version.root, name);
    if (!('name' in target)) return {};
    const entry = await reader.lookupName(s.version.root, target.name);
    return { entry: proofEntry(entry!, true), content: chunkHashesOf(s.bytes.get(target.name)!) };
  });
}

describe('tape verifier core: pinned versions and aliases', () => {
  const v1 = site(' v1', false);
  const v2 = site(' v2', false);
  const rpc = account([v1.version, v2.version], 2, [{ name: 'pr-1', version: 1 }]);
  const page = (s: Site, version: number, selector?: ProofSelector) =>
    proofOf(s, version, { kind: 'site', path: '/', name: 'index.html', status: 200 }, [], selector);
  /** The verdict on a proof offered for the URL of `selector` (`@1`, `@pr-1`). */
  const asked = async (
    selector: ProofSelector,
    proof: Promise<TapeProof>,
    answer: Partial<VerifyInput> = {},
  ) => verifyAnswer({ rpc, proof: await proof, expect: { selector }, sha256, ...answer });

  it('reads the alias table of the tape account', () => {
    const pointer = readTapePointer(Buffer.from(rpc.value!.data[0], 'base64'));
    expect(pointer).toMatchObject({ current: 2, aliases: [{ name: 'pr-1', version: 1 }] });
    expect(pointer!.kept.map((k) => k.version)).toEqual([2, 1]);
  });

  it('accepts a pinned answer of an older kept version', async () => {
    const selector = { kind: 'pinned', version: 1 } as const;
    const v = await verifyAnswer({
      rpc,
      proof: await page(v1, 1, selector),
      body: v1.bytes.get('index.html'),
      status: 200,
      headers: { 'x-tape-version': '1' },
      expect: { tape: TAPE, path: '/', selector },
      sha256,
    });
    expect(v).toMatchObject({ ok: true, version: 1 });
  });

  it('refuses a pinned answer of another version, or of a version not kept', async () => {
    const selector = { kind: 'pinned', version: 1 } as const;
    expectRefused(await asked(selector, page(v2, 2, selector)), 'wrong_target');
    const three = { kind: 'pinned', version: 3 } as const;
    expectRefused(await asked(three, page(v2, 3, three)), 'version_not_kept');
    // A pinned proof offered for the current URL: its version must still be the current one.
    expectRefused(
      await verifyAnswer({ rpc, proof: await page(v1, 1, selector), sha256 }),
      'stale_version',
    );
  });

  it('accepts an alias answer of the version its alias names, with noindex', async () => {
    const selector = { kind: 'alias', name: 'pr-1' } as const;
    const v = await verifyAnswer({
      rpc,
      proof: await page(v1, 1, selector),
      body: v1.bytes.get('index.html'),
      status: 200,
      headers: { 'x-tape-version': '1', 'x-robots-tag': 'noindex' },
      expect: { tape: TAPE, path: '/', selector },
      sha256,
    });
    expect(v).toMatchObject({ ok: true, version: 1 });
  });

  it('refuses an alias answer of another version, an unknown alias, a preview without noindex', async () => {
    const selector = { kind: 'alias', name: 'pr-1' } as const;
    const lie = await asked(selector, page(v2, 2, selector), { body: v2.bytes.get('index.html') });
    expectRefused(lie, 'alias_mismatch');
    expect(lie.ok === false && lie.message).toMatch(/points at version 1/);
    const unknown = { kind: 'alias', name: 'pr-9' } as const;
    expectRefused(await asked(unknown, page(v1, 1, unknown)), 'alias_mismatch');
    expectRefused(
      await asked(selector, page(v1, 1, selector), { headers: { 'x-tape-version': '1' } }),
      'header_mismatch',
    );
    // The proof must be of the selector asked for.
    expectRefused(await asked(selector, page(v1, 1)), 'wrong_target');
  });
});

describe('tape verifier core: answers of _redirects rules', () => {
  const s = site('', true);
  const rpc = account([s.version], 1);
  const check = (proof: TapeProof, answer: Partial<Parameters<typeof verifyAnswer>[0]> = {}) =>
    verifyAnswer({ rpc, proof, sha256, expect: { tape: TAPE }, ...answer });
  /** The names the gateway looks up for a path (its own, `.html`, `/index.html`, the pages). */
  const lookups = (path: string) => {
    const name = decodeURIComponent(path).slice(1);
    return [name, `${name}.html`, `${name}/index.html`, 'nope.html', '404.html'];
  };
  const redirectProof = (path: string, status: 301 | 302, location: string, rule: number) =>
    proofOf(s, 1, { kind: 'site', path, status, location, rule }, lookups(path));
  const pageProof = (path: string, name: string, status: 200 | 404 | 410, rule?: number) =>
    proofOf(
      s,
      1,
      { kind: 'site', path, name, status, ...(rule !== undefined && { rule }) },
      lookups(path),
    );

  it('accepts a redirect: the rule, its status and Location (on a hostname or the path route)', async () => {
    const proof = await redirectProof('/old', 301, '/new', 0);
    for (const location of ['/new', `/site/${TAPE}/new`, '/new?from=x']) {
      const v = await check(proof, {
        status: 301,
        headers: { location, 'x-tape-version': '1' },
      });
      expect(v).toMatchObject({ ok: true, redirect: { status: 301, location: '/new' } });
    }
    const blog = await redirectProof('/blog/hello%20world', 302, '/posts/hello%20world', 1);
    expect(
      await check(blog, { status: 302, headers: { location: '/posts/hello%20world' } }),
    ).toMatchObject({ ok: true });
  });

  it('refuses a redirect whose Location or status was changed, or that no rule makes', async () => {
    const proof = await redirectProof('/old', 301, '/new', 0);
    expectRefused(
      await check(proof, { status: 301, headers: { location: '/evil' } }),
      'header_mismatch',
    );
    expectRefused(
      await check(proof, { status: 302, headers: { location: '/new' } }),
      'header_mismatch',
    );
    expectRefused(
      await check(await redirectProof('/old', 301, '/evil', 0), { status: 301 }),
      'rule_mismatch',
    );
    expectRefused(await check(await redirectProof('/old', 301, '/new', 1)), 'rule_mismatch');
    expectRefused(await check(await redirectProof('/elsewhere', 301, '/new', 0)), 'rule_mismatch');
  });

  it('accepts a 200 rewrite and a 410 page chosen by a rule', async () => {
    const rewrite = await pageProof('/app/x/y', 'app/index.html', 200, 2);
    expect(
      await check(rewrite, { body: s.bytes.get('app/index.html'), status: 200 }),
    ).toMatchObject({ ok: true, entry: { name: 'app/index.html' } });
    const gone = await pageProof('/removed', 'gone.html', 410, 3);
    expect(await check(gone, { body: s.bytes.get('gone.html'), status: 410 })).toMatchObject({
      ok: true,
    });
    // A rewrite to a missing file answers with the site's 404 page.
    const missing = await pageProof('/missing', '404.html', 404, 6);
    expect(await check(missing, { body: s.bytes.get('404.html'), status: 404 })).toMatchObject({
      ok: true,
    });
  });

  it('refuses a rewrite serving another file, or another body', async () => {
    expectRefused(await check(await pageProof('/app/x', 'index.html', 200, 2)), 'rule_mismatch');
    expectRefused(await check(await pageProof('/removed', 'gone.html', 200, 3)), 'rule_mismatch');
    const rewrite = await pageProof('/app/x', 'app/index.html', 200, 2);
    expectRefused(await check(rewrite, { body: s.bytes.get('index.html') }), 'size_mismatch');
    // The 404 page instead of a rewrite target that exists.
    expectRefused(await check(await pageProof('/app/x', '404.html', 404, 2)), 'rule_mismatch');
  });

  it('a file at the path shadows a rule without !, never a forced one', async () => {
    const plain = await pageProof('/shadow.html', 'shadow.html', 200);
    expect(await check(plain, { body: s.bytes.get('shadow.html') })).toMatchObject({ ok: true });
    expectRefused(
      await check(
        await proofOf(
          s,
          1,
          { kind: 'site', path: '/shadow.html', status: 301, location: '/elsewhere', rule: 4 },
          ['shadow.html'],
        ),
      ),
      'rule_shadowed',
    );
    expectRefused(
      await check(await pageProof('/forced.html', 'forced.html', 200)),
      'rule_mismatch',
    );
    expect(
      await check(await pageProof('/forced.html', 'index.html', 200, 5), {
        body: s.bytes.get('index.html'),
      }),
    ).toMatchObject({ ok: true });
  });

  it('accepts the built-in page of a 410 rule only when its file is absent', async () => {
    const bare = site('', true, '/bare /no-such-page 410\n/removed /gone.html 410');
    const rpcBare = account([bare.version], 1);
    const page = (path: string, rule: number) =>
      proofOf(bare, 1, { kind: 'site', path, status: 410, page: 'built-in', rule }, [
        ...lookups(path),
        'no-such-page',
        'gone.html',
      ]);
    expect(
      await verifyAnswer({ rpc: rpcBare, proof: await page('/bare', 0), status: 410, sha256 }),
    ).toMatchObject({ ok: true, builtInPage: 410 });
    expectRefused(
      await verifyAnswer({ rpc: rpcBare, proof: await page('/bare', 0), status: 200, sha256 }),
      'header_mismatch',
    );
    // gone.html exists: a built-in page instead of it is a lie.
    expectRefused(
      await verifyAnswer({ rpc: rpcBare, proof: await page('/removed', 1), sha256 }),
      'rule_mismatch',
    );
  });

  it('refuses an answer that hides a rule (the 404 page, the SPA index)', async () => {
    expectRefused(await check(await pageProof('/old', '404.html', 404)), 'rule_mismatch');
    expectRefused(await check(await pageProof('/app/x', 'index.html', 200)), 'rule_mismatch');
  });
});
