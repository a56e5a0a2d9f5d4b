import { Keypair } from '@solana/web3.js';
import { Readable } from 'node:stream';
import { encodeTape, NO_VERSION, TapeRecord } from '../chain/account-layouts';
import { ChainRpc } from '../chain/chain-rpc';
import { SiteConfig } from '../config/site.config';
import { ApiError } from '../http/api-error';
import { commitmentOfBuffer } from '../tracks/commitment';
import { ObjectReader } from '../tracks/object-reader';
import { compileSiteRules, encodeSiteRules } from '../versions/rules/site-rules';
import { buildVersion } from '../versions/version-builder';
import { VersionEntry } from '../versions/version-entry';
import { newTestStore } from '../../test/support/fixtures/tracks';
import { objectAddress, verifyAnswer } from './core/tape-verifier';
import { sha256 } from './core/verdicts.spec-support';
import { ProofService } from './proof.service';
import { VersionProofs } from './version-proofs';

/** A gateway's proofs over a real file store and a tape whose account a fake RPC answers. */
async function newProofs(
  files: Record<string, string>,
  settings = '',
  extra: { redirects?: string; alias?: string } = {},
) {
  const { store } = newTestStore();
  const tapeKey = Keypair.generate().publicKey;
  const entries: VersionEntry[] = [];
  const put = async (bytes: Buffer) => {
    const c = commitmentOfBuffer(bytes).commitment;
    if (!(await store.has(c))) await store.put(c, bytes.length, Readable.from([bytes]));
    return c;
  };
  for (const [name, text] of Object.entries(files)) {
    const bytes = Buffer.from(text);
    entries.push({
      name,
      commitment: await put(bytes),
      size: bytes.length,
      contentType: 'text/html',
      metadata: Buffer.alloc(0),
      location: { kind: 'blob' },
    });
  }
  const rules = extra.redirects
    ? encodeSiteRules(compileSiteRules({ redirects: Buffer.from(extra.redirects) }))
    : Buffer.alloc(0);
  const version = buildVersion(entries, Buffer.from(settings), rules);
  for (const bytes of [version.rootBytes, ...version.nodes.map((n) => n.bytes)]) await put(bytes);
  const record: TapeRecord = {
    authority: tapeKey,
    delegate: null,
    capacity: 1 << 20,
    activeEpoch: 0,
    expiryEpoch: 9,
    createdAt: 1,
    payer: tapeKey,
    ...NO_VERSION,
    version: 1,
    latestVersion: 1,
    sequence: 1,
    history: [{ version: 1, root: version.rootCommitment, bytes: 1, publishedAt: 1 }],
    aliases: extra.alias ? [{ name: extra.alias, version: 1 }] : [],
  };
  let account: Buffer | null = encodeTape(record);
  const rpc = {
    call: async (fn: (c: unknown) => Promise<unknown>) =>
      fn({
        getAccountInfoAndContext: async () => ({
          context: { slot: 77 },
          value: account ? { data: account } : null,
        }),
      }),
  } as unknown as ChainRpc;
  const sut = new ProofService(
    rpc,
    new VersionProofs(store, new ObjectReader(store)),
    new SiteConfig(),
  );
  const tape = tapeKey.toBase58();
  const rpcAnswer = () => ({
    context: { slot: 78 },
    value: { data: [account!.toString('base64'), 'base64'] },
  });
  const refusal = (work: Promise<unknown>) =>
    work.then(
      () => 'answered',
      (err: ApiError) => `${err.getStatus()} ${err.code}`,
    );
  return {
    sut,
    tape,
    entries,
    rpcAnswer,
    refusal,
    noAccount: () => (account = null),
    noVersion: () => (account = encodeTape({ ...record, ...NO_VERSION })),
  };
}

describe('ProofService', () => {
  const files = {
    'index.html': 'home',
    'about.html': 'about',
    'docs/index.html': 'docs',
    '404.html': 'missing',
  };

  it('proves what the site routes answer, and the core accepts it with the bytes', async () => {
    const { sut, tape, rpcAnswer } = await newProofs(files);
    for (const [path, name, status] of [
      ['/', 'index.html', 200],
      ['/about', 'about.html', 200],
      ['/docs/', 'docs/index.html', 200],
      ['/nothing.png', '404.html', 404],
    ] as const) {
      const proof = await sut.siteProof(tape, path);
      expect(proof).toMatchObject({
        format: 'tape-proof-v1',
        tape,
        version: 1,
        pointer: { slot: 77 },
        target: { kind: 'site', path, name, status },
      });
      const verdict = await verifyAnswer({
        rpc: rpcAnswer(),
        proof,
        body: Buffer.from(files[name]),
        status,
        expect: { tape, path },
        sha256,
      });
      expect(verdict).toMatchObject({ ok: true, file: path });
    }
  });

  it('follows the version’s own spa_fallback setting', async () => {
    const { sut, tape } = await newProofs(
      { ...files, '_site.json': '{"spa_fallback":true}' },
      '{"spa_fallback":true}',
    );
    expect((await sut.siteProof(tape, '/app/users/7')).target).toMatchObject({
      name: 'index.html',
      status: 200,
    });
    expect((await sut.siteProof(tape, '/_site.json')).target).toMatchObject({ name: '404.html' });
  });

  it('proves pinned and alias answers; refuses a version or alias the tape does not keep', async () => {
    const { sut, tape, rpcAnswer, refusal } = await newProofs(files, '', { alias: 'pr-1' });
    for (const selector of [
      { kind: 'pinned', version: 1 },
      { kind: 'alias', name: 'pr-1' },
    ] as const) {
      const proof = await sut.siteProof(tape, '/about', selector);
      expect(proof).toMatchObject({ version: 1, selector, target: { name: 'about.html' } });
      const verdict = await verifyAnswer({
        rpc: rpcAnswer(),
        proof,
        body: Buffer.from('about'),
        expect: { tape, path: '/about', selector },
        sha256,
      });
      expect(verdict).toMatchObject({ ok: true, version: 1 });
    }
    expect(await refusal(sut.siteProof(tape, '/', { kind: 'pinned', version: 2 }))).toBe(
      '404 not_found',
    );
    expect(await refusal(sut.siteProof(tape, '/', { kind: 'alias', name: 'pr-2' }))).toBe(
      '404 not_found',
    );
  });

  it('proves what _redirects rules answer: a redirect, a rewrite, a 410 page, a shadowed rule', async () => {
    const redirects = [
      '/old/:id /new/:id 301',
      '/app/* /index.html 200',
      '/removed /404.html 410',
      '/about /elsewhere 302',
      '/bare /nothing 451',
    ].join('\n');
    const { sut, tape, rpcAnswer, refusal } = await newProofs(files, '', { redirects });
    const check = async (path: string, body?: string) =>
      verifyAnswer({
        rpc: rpcAnswer(),
        proof: await sut.siteProof(tape, path),
        body: body === undefined ? undefined : Buffer.from(body),
        expect: { tape, path },
        sha256,
      });
    expect((await sut.siteProof(tape, '/old/7')).target).toEqual({
      kind: 'site',
      path: '/old/7',
      status: 301,
      location: '/new/7',
      rule: 0,
    });
    expect(await check('/old/7')).toMatchObject({ ok: true, redirect: { status: 301 } });
    expect((await sut.siteProof(tape, '/app/x')).target).toMatchObject({
      name: 'index.html',
      status: 200,
      rule: 1,
    });
    expect(await check('/app/x', 'home')).toMatchObject({ ok: true });
    expect((await sut.siteProof(tape, '/removed')).target).toMatchObject({
      name: '404.html',
      status: 410,
      rule: 2,
    });
    expect(await check('/removed', 'missing')).toMatchObject({ ok: true });
    // about.html exists: the file shadows the rule.
    expect((await sut.siteProof(tape, '/about')).target).toEqual({
      kind: 'site',
      path: '/about',
      name: 'about.html',
      status: 200,
    });
    expect(await check('/about', 'about')).toMatchObject({ ok: true });
    // A 451 rule without its page: the gateway's built-in page, its rule and status proved.
    expect((await sut.siteProof(tape, '/bare')).target).toEqual({
      kind: 'site',
      path: '/bare',
      status: 451,
      page: 'built-in',
      rule: 4,
    });
    expect(await check('/bare')).toMatchObject({ ok: true, builtInPage: 451 });
    expect(await refusal(sut.siteProof(tape, '/a//b'))).toBe('400 bad_path');
  });

  it('proves an object by address', async () => {
    const { sut, tape, entries, rpcAnswer } = await newProofs(files);
    const about = entries.find((e) => e.name === 'about.html')!;
    const address = objectAddress(tape, about.commitment.toString('hex'))!;
    const proof = await sut.objectProof(address);
    expect(proof.target).toEqual({ kind: 'object', commitment: about.commitment.toString('hex') });
    expect(proof.entry!.name).toBeUndefined();
    const verdict = await verifyAnswer({
      rpc: rpcAnswer(),
      proof,
      body: Buffer.from('about'),
      sha256,
    });
    expect(verdict.ok).toBe(true);
  });

  it('refuses hostile and unknown input with clear 4xx', async () => {
    const p = await newProofs(files);
    expect(await p.refusal(p.sut.siteProof('not-a-tape', '/'))).toBe('400 bad_request');
    expect(await p.refusal(p.sut.siteProof(p.tape, '/a//b'))).toBe('400 bad_path');
    expect(await p.refusal(p.sut.siteProof(p.tape, '/%zz'))).toBe('400 bad_path');
    expect(await p.refusal(p.sut.siteProof(p.tape, '/.env'))).toBe('404 not_found');
    expect(await p.refusal(p.sut.siteProof(p.tape, '/docs'))).toBe('404 not_found'); // a redirect
    expect(await p.refusal(p.sut.objectProof('abc'))).toBe('400 invalid_track_address');
    expect(await p.refusal(p.sut.objectProof(p.tape))).toBe('400 invalid_track_address');
    const unknown = objectAddress(p.tape, 'ab'.repeat(32))!;
    expect(await p.refusal(p.sut.objectProof(unknown))).toBe('400 track_not_certified');
    p.noVersion();
    expect(await p.refusal(p.sut.siteProof(p.tape, '/'))).toBe('404 not_found');
    p.noAccount();
    expect(await p.refusal(p.sut.siteProof(p.tape, '/'))).toBe('404 not_found');
  });
});
