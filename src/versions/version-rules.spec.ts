import { commitmentOfBuffer } from '../tracks/commitment';
import { compileSiteRules, decodeSiteRules, encodeSiteRules, RulesError } from './rules/site-rules';
import { buildVersion } from './version-builder';
import { CertificationError, VersionCertifier } from './version-certifier';
import { VersionEntry } from './version-entry';
import { decodeRoot, encodeRoot, ROOT_MAGIC, ROOT_MAGIC_RULES } from './version-nodes';
import { ChangedFile, planVersion } from './version-planner';
import { MemoryHoldings, packedEntries } from './version-test-support.spec-support';

const REDIRECTS = '/old /new 301\n/* /index.html 200\n';
const HEADERS = "/*\n  Content-Security-Policy: script-src 'sha256-abc='\n";

/** A packed site of these files, its bytes held. */
function site(holdings: MemoryHoldings, files: Record<string, string>): VersionEntry[] {
  return packedEntries(
    holdings,
    Object.entries(files).map(([name, text]) => ({ name, bytes: Buffer.from(text) })),
  );
}

function compiled(files: { redirects?: string; headers?: string }): Buffer {
  return encodeSiteRules(
    compileSiteRules({
      redirects: files.redirects === undefined ? undefined : Buffer.from(files.redirects),
      headers: files.headers === undefined ? undefined : Buffer.from(files.headers),
    }),
  );
}

function certify(holdings: MemoryHoldings, entries: VersionEntry[], rules: Buffer) {
  const v = buildVersion(entries, Buffer.alloc(0), rules);
  holdings.putVersion(v);
  return new VersionCertifier(holdings).certify(
    { commitment: v.rootCommitment, bytes: v.rootBytes.length },
    undefined,
  );
}

describe('rules in a version', () => {
  it('spells a root without rules as before and one with rules with its own magic, canonically', () => {
    const plain = buildVersion([]);
    expect(plain.rootBytes.subarray(0, 15).equals(ROOT_MAGIC)).toBe(true);
    const rules = compiled({ redirects: REDIRECTS });
    const withRules = buildVersion([], Buffer.alloc(0), rules);
    expect(withRules.rootBytes.subarray(0, 15).equals(ROOT_MAGIC_RULES)).toBe(true);
    expect(decodeRoot(withRules.rootBytes).rules.equals(rules)).toBe(true);
    // A rules root with an empty rules field is not the canonical spelling of "no rules".
    const forged = Buffer.concat([
      ROOT_MAGIC_RULES,
      plain.rootBytes.subarray(15, 15 + 20),
      Buffer.alloc(4),
      plain.rootBytes.subarray(35),
    ]);
    expect(() => decodeRoot(forged)).toThrow();
    expect(encodeRoot(decodeRoot(withRules.rootBytes)).equals(withRules.rootBytes)).toBe(true);
  });

  it('certifies rules that are the compilation of the version files', async () => {
    const holdings = new MemoryHoldings();
    const entries = site(holdings, {
      'index.html': 'hi',
      _redirects: REDIRECTS,
      _headers: HEADERS,
    });
    const rules = compiled({ redirects: REDIRECTS, headers: HEADERS });
    const done = await certify(holdings, entries, rules);
    expect(decodeSiteRules(done.root.rules).redirects).toHaveLength(2);
  });

  it('refuses rules that are not the files, and files the fence refuses, whoever built them', async () => {
    const holdings = new MemoryHoldings();
    const entries = site(holdings, { 'index.html': 'hi', _redirects: REDIRECTS });
    await expect(certify(holdings, entries, Buffer.alloc(0))).rejects.toThrow(
      /not the compilation of its _redirects/,
    );
    await expect(certify(holdings, entries, compiled({ redirects: '/a /b 302' }))).rejects.toThrow(
      CertificationError,
    );
    const hostile = site(holdings, {
      'index.html': 'hi',
      _headers: '/*\n  Set-Cookie: a=b\n  Content-Security-Policy: sandbox allow-same-origin\n',
      _redirects: '/go https://evil.example/ 302\n',
    });
    const refused = certify(holdings, hostile, Buffer.alloc(0));
    await expect(refused).rejects.toThrow(CertificationError);
    await expect(refused).rejects.toThrow(
      /_redirects:1: "https:\/\/evil.example\/" is another origin[\s\S]*_headers:2: a site can never set cookies[\s\S]*_headers:3: .*sandbox/,
    );
  });
});

describe('planVersion and rules', () => {
  const file = (name: string, text: string): ChangedFile & { text: string } => {
    const bytes = Buffer.from(text);
    return {
      name,
      text,
      commitment: commitmentOfBuffer(bytes).commitment,
      size: bytes.length,
      contentType: 'text/plain',
      layout: { kind: 'blob' },
    };
  };
  const read = (f: ChangedFile) =>
    Promise.resolve(Buffer.from((f as ChangedFile & { text?: string }).text ?? ''));
  const texts = new Map<string, string>();
  const readByCommitment = (f: ChangedFile) =>
    Promise.resolve(Buffer.from(texts.get(f.commitment.toString('hex')) ?? ''));
  const put = (name: string, text: string) => {
    const f = file(name, text);
    texts.set(f.commitment.toString('hex'), text);
    return f;
  };

  it('compiles written rules files, keeps the base part of an unwritten one, drops a removed one', async () => {
    const first = await planVersion(
      { entries: [], settings: Buffer.alloc(0) },
      { put: [put('_redirects', REDIRECTS), put('_headers', HEADERS), put('index.html', 'x')] },
      readByCommitment,
    );
    expect(first.rules.equals(compiled({ redirects: REDIRECTS, headers: HEADERS }))).toBe(true);
    const second = await planVersion(
      { entries: first.entries, settings: first.settings, rules: first.rules },
      { put: [put('_headers', '/a\n  X-Robots-Tag: noindex\n')] },
      readByCommitment,
    );
    expect(
      second.rules.equals(
        compiled({ redirects: REDIRECTS, headers: '/a\n  X-Robots-Tag: noindex\n' }),
      ),
    ).toBe(true);
    const third = await planVersion(
      { entries: second.entries, settings: second.settings, rules: second.rules },
      { put: [], remove: ['_redirects', '_headers'] },
      read,
    );
    expect(third.rules.length).toBe(0);
  });

  it('refuses a change whose rules files the fence refuses, every problem on its own line', async () => {
    const planned = planVersion(
      { entries: [], settings: Buffer.alloc(0) },
      { put: [put('_redirects', '/a /b 305\n/c https://x.example/\n')] },
      readByCommitment,
    );
    await expect(planned).rejects.toThrow(RulesError);
    await expect(planned).rejects.toThrow(
      /_redirects:1: status 305 is not allowed[^\n]*\n_redirects:2: .*another origin/,
    );
  });
});
