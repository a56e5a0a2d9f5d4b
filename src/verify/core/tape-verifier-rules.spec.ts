import { createHash } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { encodeTape, NO_VERSION, TapeAlias, TapeRecord } from '../../chain/account-layouts';
import { commitmentOfBuffer } from '../../tracks/commitment';
import { compileSiteRules, encodeSiteRules } from '../../versions/rules/site-rules';
import { BuiltVersion, buildVersion } from '../../versions/version-builder';
import { VersionEntry } from '../../versions/version-entry';
import { VersionNodeSource, VersionReader } from '../../versions/version-reader';
import { proofEntry } from '../version-proofs';
import {
  FailureReason,
  PROOF_FORMAT,
  ProofSelector,
  readTapePointer,
  RpcAccountAnswer,
  Sha256,
  SiteProofTarget,
  TapeProof,
  Verdict,
  verifyAnswer,
} from './tape-verifier';

/** Pinned and alias answers, and answers a site's `_redirects` decides (docs/verify.md). */

const sha256: Sha256 = (data) => createHash('sha256').update(data).digest();
const tapeKey = Keypair.generate().publicKey;
const TAPE = tapeKey.toBase58();

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
  const bytes = new Map<string, Buffer>();
  const entries: VersionEntry[] = [];
  const add = (name: string, body: Buffer) => {
    bytes.set(name, body);
    entries.push({
      name,
      commitment: commitmentOfBuffer(body).commitment,
      size: body.length,
      contentType: 'text/html',
      metadata: Buffer.alloc(0),
      location: { kind: 'blob' },
    });
  };
  // Enough names for branch nodes: rule checks look names up through them.
  for (let i = 0; i < 1200; i++) add(`pages/p-${i}.html`, Buffer.from(`page ${i}`));
  for (const name of ['index.html', '404.html', 'app/index.html', 'gone.html']) {
    add(name, Buffer.from(`${name}${revision}`));
  }
  add('shadow.html', Buffer.from('a file shadowing a rule'));
  add('forced.html', Buffer.from('a file a forced rule hides'));
  const rules = withRules
    ? encodeSiteRules(compileSiteRules({ redirects: Buffer.from(redirects) }))
    : Buffer.alloc(0);
  return { version: buildVersion(entries, Buffer.alloc(0), rules), bytes };
}

type Site = ReturnType<typeof site>;

function account(kept: BuiltVersion[], current: number, aliases: TapeAlias[] = []) {
  const record: TapeRecord = {
    authority: tapeKey,
    delegate: null,
    capacity: 1 << 30,
    activeEpoch: 0,
    expiryEpoch: 100,
    createdAt: 1,
    payer: tapeKey,
    ...NO_VERSION,
    history: kept.map((v, i) => ({
      version: i + 1,
      root: v.rootCommitment,
      bytes: 1,
      publishedAt: 1,
    })),
    version: current,
    latestVersion: kept.length,
    aliases,
  };
  const answer: RpcAccountAnswer = {
    context: { slot: 7 },
    value: { data: [encodeTape(record).toString('base64'), 'base64'], owner: 'x' },
  };
  return answer;
}

/**
 * A proof as the gateway builds it: every name in `lookups` looked up with a recording reader
 * (so the nodes a verifier needs to see a name present or absent are in it), `file` the answer.
 */
async function proofOf(
  s: Site,
  version: number,
  target: SiteProofTarget,
  lookups: string[],
  selector?: ProofSelector,
): Promise<TapeProof> {
  const tracks = new Map<string, Buffer>();
  for (const n of s.version.nodes) tracks.set(n.commitment.toString('hex'), n.bytes);
  const nodes = [s.version.rootBytes];
  const source: VersionNodeSource = {
    read: async (c) => {
      const b = tracks.get(c.toString('hex'))!;
      nodes.push(b);
      return b;
    },
  };
  const reader = new VersionReader(source);
  for (const name of lookups) await reader.lookupName(s.version.root, name);
  const proof: TapeProof = {
    format: PROOF_FORMAT,
    tape: TAPE,
    pointer: { slot: 6, data: '' },
    version,
    root: s.version.rootCommitment.toString('hex'),
    ...(selector && { selector }),
    target,
    nodes: nodes.map((n) => n.toString('base64')),
  };
  if ('name' in target) {
    const entry = await reader.lookupName(s.version.root, target.name);
    proof.entry = proofEntry(entry!, true);
    proof.content = {
      chunkHashes: commitmentOfBuffer(s.bytes.get(target.name)!).chunkHashes.toString('base64'),
    };
    proof.nodes = nodes.map((n) => n.toString('base64'));
  }
  return proof;
}

function expectRefused(v: Verdict, reason: FailureReason): void {
  expect(v).toMatchObject({ ok: false, reason });
}

describe('tape verifier core: pinned versions and aliases', () => {
  const v1 = site(' v1', false);
  const v2 = site(' v2', false);
  const rpc = account([v1.version, v2.version], 2, [{ name: 'pr-1', version: 1 }]);
  const page = (s: Site, version: number, selector?: ProofSelector) =>
    proofOf(s, version, { kind: 'site', path: '/', name: 'index.html', status: 200 }, [], selector);

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
    expectRefused(
      await verifyAnswer({
        rpc,
        proof: await page(v2, 2, selector),
        expect: { selector },
        sha256,
      }),
      'wrong_target',
    );
    const three = { kind: 'pinned', version: 3 } as const;
    expectRefused(
      await verifyAnswer({
        rpc,
        proof: await page(v2, 3, three),
        expect: { selector: three },
        sha256,
      }),
      'version_not_kept',
    );
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
    const lie = await verifyAnswer({
      rpc,
      proof: await page(v2, 2, selector),
      body: v2.bytes.get('index.html'),
      expect: { selector },
      sha256,
    });
    expectRefused(lie, 'alias_mismatch');
    expect(lie.ok === false && lie.message).toMatch(/points at version 1/);
    const unknown = { kind: 'alias', name: 'pr-9' } as const;
    expectRefused(
      await verifyAnswer({
        rpc,
        proof: await page(v1, 1, unknown),
        expect: { selector: unknown },
        sha256,
      }),
      'alias_mismatch',
    );
    expectRefused(
      await verifyAnswer({
        rpc,
        proof: await page(v1, 1, selector),
        headers: { 'x-tape-version': '1' },
        expect: { selector },
        sha256,
      }),
      'header_mismatch',
    );
    // The proof must be of the selector asked for.
    expectRefused(
      await verifyAnswer({ rpc, proof: await page(v1, 1), expect: { selector }, sha256 }),
      'wrong_target',
    );
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
