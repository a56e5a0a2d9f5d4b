import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { join } from 'node:path';
import { objectAddress } from '../src/verify/core/tape-verifier';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { CliUser, keyValues } from './support/clients/cli';
import { generateSite, removeSite, writeSite } from './support/fixtures/site-dir';
import { LyingGateway, startLyingGateway } from './support/proxies/lying-gateway';

const TIMEOUT_MS = 300_000;

interface Report {
  ok: boolean;
  files: number;
  bytes: number;
  version: number;
  seconds: number;
  failure?: { file: string; reason: string; range?: [number, number]; message: string };
}

/**
 * `tape verify` against an honest gateway and against a deliberately lying one in front of it
 * (test/support/proxies/lying-gateway.ts): every lie is caught, with its reason, file and bytes.
 */
describe('tape verify', () => {
  let gw: GatewayProcess;
  let liar: LyingGateway;
  let u: CliUser;
  let tape: string;
  let label: string;
  const roots: string[] = [];
  const big = Buffer.alloc(200_000);
  for (let i = 0; i < big.length; i++) big[i] = (i * 7) % 253;

  const site = (seed: string) => {
    const files = generateSite(1000, 1_000_000, seed);
    files['big.bin'] = big;
    files['a.txt'] = Buffer.from(`file a ${seed}`);
    files['b.txt'] = Buffer.from(`file b ${seed}`);
    files['docs/index.html'] = Buffer.from(`<p>docs ${seed}</p>`);
    const root = writeSite(files);
    roots.push(root);
    return { root, files };
  };
  const verify = (args: string[]) => u.run(['verify', ...args, '--json']);
  const report = async (args: string[]) => {
    const r = await verify(args);
    return { code: r.code, report: JSON.parse(r.stdout) as Report, stderr: r.stderr };
  };
  const siteUrl = (base: string, path: string) => `${base}/site/${tape}${path}`;

  beforeAll(async () => {
    gw = await startGateway();
    liar = await startLyingGateway(gw.url);
    u = new CliUser(gw);
    await u.fundedWallet();
    const created = keyValues(await u.ok(['create', '--capacity', '20m', '--duration', '1d']));
    tape = created['tape address'];
    label = created.label;
    const v1 = site('v1');
    await u.ok(['deploy', join(v1.root, 'index.html')]);
    // What a liar keeps of version 1, to serve it as current later.
    liar.mode = { kind: 'record' };
    for (const path of ['/a.txt', '/docs/']) {
      expect((await report([siteUrl(liar.url, path)])).code).toBe(0);
    }
    const v2 = site('v2');
    await u.ok(['deploy', join(v2.root, 'index.html')]);
    liar.mode = { kind: 'honest' };
  }, TIMEOUT_MS);

  afterAll(async () => {
    await liar?.close();
    await gw?.stop();
    u?.cleanup();
    for (const root of roots) removeSite(root);
  });

  it(
    'passes an honest gateway for a 1,000-file site in under 10 s',
    async () => {
      const started = performance.now();
      // The gateway itself (the proxy in honest mode is the next test's): nothing in between.
      const { code, report: r } = await report([siteUrl(gw.url, '/'), '--all']);
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `tape verify --all: ${r.files} files, ${r.bytes} bytes in ${seconds.toFixed(2)} s (process), ${r.seconds} s (verify)`,
      );
      expect(code).toBe(0);
      expect(r).toMatchObject({ ok: true, version: 2 });
      expect(r.files).toBe(1004);
      // The check itself; the process's start-up (about 3 s on this loaded machine) is printed.
      expect(r.seconds).toBeLessThan(10);
    },
    TIMEOUT_MS,
  );

  it(
    'passes honest single answers: a page, a directory, an object; text output names the version',
    async () => {
      const out = await u.ok(['verify', siteUrl(liar.url, '/big.bin')]);
      expect(out).toMatch(
        /^verified 1 file \(200000 bytes\) of tape \S+ version 2 against the chain at slot \d+/,
      );
      // The URL `tape deploy` prints: the site's own host (*.localhost is loopback).
      const host = `http://${label}.localhost:${new URL(gw.url).port}`;
      expect((await report([`${host}/docs`])).report).toMatchObject({ ok: true, version: 2 });
      const dir = await report([siteUrl(liar.url, '/docs')]);
      expect(dir.report).toMatchObject({ ok: true, files: 1 });
      const proof = JSON.parse((await get(`${gw.url}/proof/site/${tape}/big.bin`)).body.toString());
      const track = base58Object(tape, proof.entry.commitment);
      expect((await report([`${liar.url}/object/${track}`])).report).toMatchObject({
        ok: true,
        bytes: 200_000,
      });
    },
    TIMEOUT_MS,
  );

  it(
    'catches a flipped byte: the file, the chunk and the reason; --all names the first file',
    async () => {
      liar.mode = { kind: 'flip-byte', offset: 70_000 };
      const one = await verify([siteUrl(liar.url, '/big.bin')]);
      expect(one.code).not.toBe(0);
      expect(JSON.parse(one.stdout).failure).toMatchObject({
        file: '/big.bin',
        reason: 'content_mismatch',
        range: [65536, 131071],
      });
      const line = await u.fails(['verify', siteUrl(liar.url, '/big.bin')]);
      expect(line).toMatch(
        /^verification failed: \/big\.bin: bytes 65536-131071: content_mismatch: chunk 1 does not match its hash/,
      );
      liar.mode = { kind: 'flip-byte', offset: 70_000, only: '/big.bin' };
      const all = await report([siteUrl(liar.url, '/'), '--all']);
      expect(all.code).not.toBe(0);
      expect(all.report.failure).toMatchObject({
        file: 'big.bin',
        reason: 'content_mismatch',
        range: [65536, 131071],
      });
      liar.mode = { kind: 'flip-byte', offset: 70_000 };
      const proof = JSON.parse((await get(`${gw.url}/proof/site/${tape}/a.txt`)).body.toString());
      const track = base58Object(tape, proof.entry.commitment);
      expect((await report([`${liar.url}/object/${track}`])).report.failure).toMatchObject({
        reason: 'content_mismatch',
        range: [0, 8], // "file a v2"
      });
    },
    TIMEOUT_MS,
  );

  it(
    'catches two names swapped, bytes and proofs alike',
    async () => {
      liar.mode = { kind: 'swap-names', a: '/a.txt', b: '/b.txt' };
      const r = await report([siteUrl(liar.url, '/a.txt')]);
      expect(r.code).not.toBe(0);
      expect(r.report.failure).toMatchObject({ file: '/a.txt', reason: 'name_not_for_path' });
    },
    TIMEOUT_MS,
  );

  it(
    'catches an older version served as current',
    async () => {
      liar.mode = { kind: 'replay' };
      for (const path of ['/a.txt', '/docs/']) {
        const r = await report([siteUrl(liar.url, path)]);
        expect(r.code).not.toBe(0);
        expect(r.report.failure).toMatchObject({ file: path, reason: 'stale_version' });
        expect(r.report.failure?.message).toContain('current version is 2');
      }
    },
    TIMEOUT_MS,
  );

  it(
    'catches a version that was never certified',
    async () => {
      liar.mode = { kind: 'forge', bytes: Buffer.from('<script>steal()</script>') };
      const r = await report([siteUrl(liar.url, '/a.txt')]);
      expect(r.code).not.toBe(0);
      expect(r.report.failure).toMatchObject({ file: '/a.txt', reason: 'root_mismatch' });
      expect(r.report.failure?.message).toContain('was never published');
    },
    TIMEOUT_MS,
  );

  it(
    'honest answers carry X-Tape-Version, X-Tape-Commitment and Content-Digest; the proof route refuses hostile input',
    async () => {
      const page = await get(`${gw.url}/site/${tape}/a.txt`);
      expect(page.headers['x-tape-version']).toBe('2');
      expect(page.headers['x-tape-commitment']).toMatch(/^[0-9a-f]{64}$/);
      expect(page.headers['content-digest']).toBe(`sha-256=:${sha256b64(page.body)}:`);
      const proof = JSON.parse((await get(`${gw.url}/proof/site/${tape}/a.txt`)).body.toString());
      expect(proof).toMatchObject({ format: 'tape-proof-v1', version: 2, tape });
      const track = base58Object(tape, proof.entry.commitment);
      const object = await get(`${gw.url}/object/${track}`);
      expect(object.headers).toMatchObject({
        'x-tape-version': '2',
        'x-tape-commitment': proof.entry.commitment,
        'content-digest': `sha-256=:${sha256b64(object.body)}:`,
      });
      expect((await get(`${gw.url}/proof/site/not-a-tape/a.txt`)).status).toBe(400);
      expect((await get(`${gw.url}/proof/site/${tape}/a//b`)).status).toBe(400);
      expect((await get(`${gw.url}/proof/site/${tape}/nothing.txt`)).status).toBe(404);
      expect(
        (await get(`${gw.url}/proof/site/11111111111111111111111111111111/a.txt`)).status,
      ).toBe(404);
      expect((await get(`${gw.url}/proof/object/abc`)).status).toBe(400);
      const module = await get(`${gw.url}/_tape/verify.js`);
      expect(module.status).toBe(200);
      expect(module.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(module.body.toString()).toContain('export async function verifyAnswer');
      expect(module.body.toString()).not.toMatch(/\brequire\(|from ['"]/);
    },
    TIMEOUT_MS,
  );

  it(
    'checks pinned and alias URLs and _redirects answers; catches a moved Location and an alias served from another version',
    async () => {
      liar.mode = { kind: 'honest' };
      // Version 1 stays kept after version 2: its pinned URL is proved from the history table.
      const pinned = await report([`${liar.url}/site/${tape}@1/a.txt`]);
      expect(pinned.report).toMatchObject({ ok: true, version: 1, files: 1 });
      // A preview with rules under an alias: the live site stays version 2.
      const preview = writeSite({
        'index.html': Buffer.from('<p>preview</p>'),
        'new.html': Buffer.from('<p>the new page</p>'),
        'app/index.html': Buffer.from('<p>the app</p>'),
        _redirects: Buffer.from('/old /new 301\n/app/* /app/index.html 200\n'),
      });
      roots.push(preview);
      await u.ok(['deploy', preview, '--alias', 'pr-1']);
      const alias = `${liar.url}/site/${tape}@pr-1`;
      // The redirect (its rule, status and Location) and the page it leads to: two answers.
      const moved = await report([`${alias}/old`]);
      expect(moved.code).toBe(0);
      expect(moved.report).toMatchObject({ ok: true, version: 3, files: 2 });
      const rewrite = await report([`${alias}/app/users/7`]);
      expect(rewrite.report).toMatchObject({ ok: true, version: 3, files: 1 });
      const port = new URL(gw.url).port;
      const host = await report([`http://pr-1--${label}.localhost:${port}/old`]);
      expect(host.report).toMatchObject({ ok: true, version: 3, files: 2 });
      expect((await report([siteUrl(liar.url, '/a.txt')])).report).toMatchObject({ version: 2 });

      liar.mode = { kind: 'relocate', location: `/site/${tape}@pr-1/elsewhere` };
      const relocated = await report([`${alias}/old`]);
      expect(relocated.code).not.toBe(0);
      expect(relocated.report.failure).toMatchObject({ file: '/old', reason: 'header_mismatch' });
      expect(relocated.report.failure!.message).toMatch(/Location/);

      liar.mode = { kind: 'unpin', selector: 'pr-1' };
      const unpinned = await report([`${alias}/a.txt`]);
      expect(unpinned.code).not.toBe(0);
      expect(unpinned.report.failure).toMatchObject({ file: '/a.txt', reason: 'alias_mismatch' });
      liar.mode = { kind: 'honest' };
    },
    TIMEOUT_MS,
  );
});

function get(
  url: string,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'accept-encoding': 'identity' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          headers: res.headers as Record<string, string>,
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

function sha256b64(body: Buffer): string {
  return createHash('sha256').update(body).digest('base64');
}

function base58Object(tape: string, commitmentHex: string): string {
  return objectAddress(tape, commitmentHex)!;
}
