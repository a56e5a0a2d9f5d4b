import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { Connection, PublicKey } from '@solana/web3.js';
import { join } from 'node:path';
import { GatewayClient } from '../src/cli/deploy/gateway-client';
import { commitmentOfFile } from '../src/tracks/commitment';
import { freePort } from './support/processes/free-port';
import { GatewayProcess, REPO_ROOT, startGateway } from './support/processes/gateway';
import { CliDesk } from './support/labs/cli-desk';
import { CliUser } from './support/clients/cli';
import { generateSite, writeSite } from './support/fixtures/site-dir';

interface ListedObject {
  type: string;
  name: string;
  size: number;
  content_type: string;
  track: string;
  commitment: string;
  streamed: boolean;
  version: number;
}

const SEGMENT_BYTES = 64 * 1024;
const DEPLOYED = /^Deployed (\d+) files \((\d+) uploaded, (\d+) unchanged\)$/;

/**
 * `tape deploy` as a subprocess of the built CLI against a real gateway with the local network
 * embedded. Segments are 64 KiB here so that streamed objects are exercised with small files;
 * epochs last 3 s so that a tape can expire within a test.
 */
/**
 * it.concurrent does not take the project's testTimeout: each test names its own, roomy: CI
 * machines are shared, and Jest runs another file beside this one (two workers on 2 cores).
 */
const TEST_TIMEOUT_MS = 300_000;

describe('tape deploy', () => {
  let gw: GatewayProcess;
  const desk = new CliDesk();
  const site = (files: Record<string, string | Buffer>) => desk.site(files);
  /** A user with a funded wallet and an active tape of `capacity`. */
  const withTape = (capacity = '10m', env: Record<string, string> = {}) =>
    desk.withTape(gw, capacity, env);
  const deploy = async (u: CliUser, root: string, extra: string[] = []) => {
    const out = await u.ok(['deploy', join(root, 'index.html'), ...extra]);
    const lines = out.trimEnd().split('\n');
    // The spec's three lines, and the gateway's path URL (a loopback gateway has a host URL too).
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatch(/^Path: http:\/\/127\.0\.0\.1:\d+\/site\/\w+\/$/);
    const [, files, uploaded, unchanged] = DEPLOYED.exec(lines[0])!.map(Number);
    return { lines, files, uploaded, unchanged };
  };
  const objects = async (u: CliUser) => {
    const list = await u.json<ListedObject[]>(['object', 'ls']);
    return new Map(list.map((o) => [o.name, o]));
  };
  /** GET through the gateway by hostname, as a browser opening the printed URL would. */
  const open = (url: string, path = '/') =>
    new Promise<{ status: number; type?: string; body: Buffer }>((resolve, reject) => {
      const printed = new URL(url);
      const req = request(
        { host: '127.0.0.1', port: gw.port, path, headers: { host: printed.host } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode!,
              type: res.headers['content-type'],
              body: Buffer.concat(chunks),
            }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });

  beforeAll(async () => {
    gw = await startGateway({
      config: { localnet: { epoch_duration_secs: 3 }, storage: { segment_bytes: SEGMENT_BYTES } },
    });
  });
  afterAll(async () => {
    desk.cleanup();
    await gw?.stop();
  });

  it.concurrent(
    'deploys the example site, prints the spec lines, and the printed URL serves it',
    async () => {
      const { u, tape, label, wallet: walletKey } = await withTape();
      const root = site({});
      cpSync(join(REPO_ROOT, 'examples', 'hello-site'), root, { recursive: true });
      writeSite({ '.well-known/security.txt': 'Contact: x', '.env': 'SECRET=1' }, root);
      const wallet = new PublicKey(walletKey);
      const gatewayClient = new GatewayClient(gw.url);
      const gatewayKey = new PublicKey((await gatewayClient.uploadConfig()).gatewayKey);
      gatewayClient.close();
      const chain = new Connection(gw.rpcUrl, 'confirmed');
      const [walletBefore, gatewayBefore] = [
        await chain.getBalance(wallet),
        await chain.getBalance(gatewayKey),
      ];
      const first = await deploy(u, root);
      const walletMoved = walletBefore - (await chain.getBalance(wallet));
      const gatewayMoved = gatewayBefore - (await chain.getBalance(gatewayKey));
      console.log(
        `tape deploy of 7 files: wallet moved ${walletMoved} lamports, gateway key ${gatewayMoved}`,
      );
      // One Publish: fees only (3 signatures, 15,000 lamports), no rent (the smallest is 890,880).
      expect(walletMoved).toBeGreaterThan(0);
      expect(walletMoved).toBeLessThan(50_000);
      expect(gatewayMoved).toBe(0);
      expect(first.lines).toEqual([
        'Deployed 7 files (7 uploaded, 0 unchanged)',
        `Tape: ${tape}`,
        `URL:  http://${label}.localhost:${gw.port}/`,
        `Path: ${gw.url}/site/${tape}/`,
      ]);
      const listed = await objects(u);
      expect([...listed.keys()]).toEqual([
        '404.html',
        '_site.json',
        'about/index.html',
        'assets/app.js',
        'assets/logo.svg',
        'assets/site.css',
        'index.html',
      ]);
      for (const [name, o] of listed) {
        expect(o.commitment).toBe(
          (await commitmentOfFile(join(root, name))).commitment.toString('hex'),
        );
      }
      expect(listed.get('assets/logo.svg')!.content_type).toBe('image/svg+xml');
      expect(listed.get('assets/app.js')!.content_type).toBe('text/javascript; charset=utf-8');

      const table = (await u.ok(['object', 'ls'])).trimEnd().split('\n');
      expect(table[0]).toMatch(/^TYPE\s+SIZE\s+CONTENT-TYPE\s+NAME$/);
      expect(table).toHaveLength(8);
      expect(table[7]).toMatch(/^object\s+\d+\s+text\/html; charset=utf-8\s+index\.html$/);

      const url = first.lines[2].slice('URL:  '.length);
      const home = await open(url, '/');
      expect(home.status).toBe(200);
      expect(home.body.toString()).toContain('Hello from a tape');
      expect((await open(url, '/about/')).body.toString()).toContain('<h1>About</h1>');
      expect((await open(url, '/assets/site.css')).type).toMatch(/^text\/css/);
      expect((await open(url, '/.well-known/security.txt')).status).toBe(404);

      expect((await u.json<{ version: number }>(['info'])).version).toBe(1);
      const again = await u.run(['deploy', join(root, 'index.html')]);
      expect(again.stdout.split('\n')[0]).toBe('Deployed 7 files (0 uploaded, 7 unchanged)');
      expect(again.stderr).toMatch(
        /^nothing changed: version 1 stays live, nothing was published$/m,
      );
      expect((await u.json<{ version: number }>(['info'])).version).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'incremental deploys upload only what changed; --prune removes stale names; object rm',
    async () => {
      const { u } = await withTape();
      const root = site({ 'index.html': 'v1', 'a.txt': 'a', 'b.txt': 'b1', 'c.txt': 'c' });
      expect((await deploy(u, root)).lines[0]).toBe('Deployed 4 files (4 uploaded, 0 unchanged)');
      const v1 = await objects(u);

      writeSite({ 'b.txt': 'b2', 'd.txt': 'd' }, root);
      rmSync(join(root, 'c.txt'));
      expect((await deploy(u, root)).lines[0]).toBe('Deployed 4 files (2 uploaded, 2 unchanged)');
      const v2 = await objects(u);
      expect(v2.get('b.txt')!.commitment).not.toBe(v1.get('b.txt')!.commitment);
      expect(v2.get('index.html')!.commitment).toBe(v1.get('index.html')!.commitment);
      // Without --prune a removed file stays on the tape.
      expect(v2.has('c.txt')).toBe(true);

      // --yes: no terminal here to confirm the removal on (docs/cli.md, "Confirmation").
      expect((await deploy(u, root, ['--prune', '--yes'])).lines[0]).toBe(
        'Deployed 4 files (0 uploaded, 4 unchanged)',
      );
      expect([...(await objects(u)).keys()]).toEqual(['a.txt', 'b.txt', 'd.txt', 'index.html']);

      expect(await u.ok(['object', 'rm', 'd.txt'])).toBe('removed d.txt\n');
      expect((await objects(u)).has('d.txt')).toBe(false);
      expect(await u.fails(['object', 'rm', 'd.txt'])).toMatch(/^no object named 'd.txt' on tape /);
      expect((await deploy(u, root)).lines[0]).toBe('Deployed 4 files (1 uploaded, 3 unchanged)');
      const info = await u.json<{
        version: number;
        objects: number;
        used: number;
        kept_bytes: number;
      }>(['info']);
      expect(info).toMatchObject({ version: 5, objects: 4 });
      // Used is what capacity is charged: the kept versions' unique bytes (no per-file accounts).
      expect(info.used).toBeGreaterThan(0);
      expect(info.used).toBe(info.kept_bytes);
      // Several names removed in one version.
      expect(await u.ok(['object', 'rm', 'a.txt', 'b.txt', '--yes'])).toBe(
        'removed a.txt\nremoved b.txt\n',
      );
      expect(await u.json<{ version: number; objects: number }>(['info'])).toMatchObject({
        version: 6,
        objects: 2,
      });
      expect(await u.fails(['object', 'rm', 'index.html', 'a.txt'])).toMatch(
        /^no object named 'a.txt' on tape \S+ \(version 6\); nothing was removed$/,
      );
      expect([...(await objects(u)).keys()]).toEqual(['d.txt', 'index.html']);
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'hidden files, .well-known, unusual extensions, spaces, non-ASCII and streamed files',
    async () => {
      const { u, label } = await withTape();
      const big = Buffer.alloc(SEGMENT_BYTES * 3 + 123);
      for (let i = 0; i < big.length; i++) big[i] = (i * 31) & 0xff;
      const root = site({
        'index.html': '<h1>home</h1>',
        'my page.html': '<p>space</p>',
        'ünïcödé/日本語.txt': 'konnichiwa',
        'data.weirdext': 'binary-ish',
        'module.wasm': Buffer.from([0, 0x61, 0x73, 0x6d]),
        noextension: 'plain',
        'video/big.mp4': big,
        '.well-known/acme-challenge/token': 'nope',
        '.git/HEAD': 'ref: refs/heads/main',
        'docs/.draft.md': 'secret draft',
      });
      const result = await deploy(u, root);
      expect(result.lines[0]).toBe('Deployed 7 files (7 uploaded, 0 unchanged)');
      const listed = await objects(u);
      expect([...listed.keys()].sort()).toEqual(
        [
          'data.weirdext',
          'index.html',
          'module.wasm',
          'my page.html',
          'noextension',
          'video/big.mp4',
          'ünïcödé/日本語.txt',
        ].sort(),
      );
      expect(listed.get('data.weirdext')!.content_type).toBe('application/octet-stream');
      expect(listed.get('noextension')!.content_type).toBe('application/octet-stream');
      expect(listed.get('module.wasm')!.content_type).toBe('application/wasm');
      expect(listed.get('ünïcödé/日本語.txt')!.content_type).toBe('text/plain; charset=utf-8');
      const video = listed.get('video/big.mp4')!;
      expect(video).toMatchObject({ size: big.length, streamed: true, content_type: 'video/mp4' });
      const url = `http://${label}.localhost:${gw.port}/`;
      expect((await open(url, '/my%20page.html')).body.toString()).toBe('<p>space</p>');
      expect((await open(url, `/${encodeURI('ünïcödé/日本語.txt')}`)).body.toString()).toBe(
        'konnichiwa',
      );
      const served = await open(url, '/video/big.mp4');
      expect(served.status).toBe(200);
      expect(served.body.equals(big)).toBe(true);
      expect((await deploy(u, root)).lines[0]).toBe('Deployed 7 files (0 uploaded, 7 unchanged)');
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'a visible symlink is refused, naming it, and nothing is uploaded',
    async () => {
      const { u } = await withTape();
      const root = site({ 'index.html': 'x', 'real.txt': 'r', 'deep/ok.txt': 'ok' });
      symlinkSync(join(root, 'real.txt'), join(root, 'deep', 'alias.txt'));
      expect(await u.fails(['deploy', join(root, 'index.html')])).toBe(
        'symlink not allowed: deep/alias.txt; nothing was uploaded',
      );
      expect((await objects(u)).size).toBe(0);
      expect((await u.json<{ used: number }>(['info'])).used).toBe(0);
      // A hidden symlink is simply skipped.
      rmSync(join(root, 'deep', 'alias.txt'));
      symlinkSync('/etc', join(root, '.config'));
      expect((await deploy(u, root)).lines[0]).toBe('Deployed 3 files (3 uploaded, 0 unchanged)');
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'a path that is not a site, and a tape that cannot hold the site',
    async () => {
      const { u } = await withTape('2k');
      const root = site({
        'index.html': 'x'.repeat(1000),
        'big.bin': Buffer.alloc(5000, 1),
        'home.html': 'h',
      });
      expect(await u.fails(['deploy', join(root, 'home.html')])).toMatch(
        /home\.html is not a site directory or its index\.html/,
      );
      expect(await u.fails(['deploy', join(root, 'missing', 'index.html')])).toMatch(
        /^no such file or directory: /,
      );
      // The directory is a site like its index.html: refused for the same capacity.
      const byDirectory = await u.fails(['deploy', root]);
      expect(byDirectory).toMatch(/^insufficient capacity: /);
      // One pack of the three files (6,001 bytes) and the root: past 2 KiB by more than 3,953.
      const refused =
        /^insufficient capacity: need (\d+) more bytes \(fix: tape resize --add (\d+k)\)$/.exec(
          await u.fails(['deploy', join(root, 'index.html')]),
        );
      expect(byDirectory).toBe(refused![0]);
      expect(Number(refused![1])).toBeGreaterThan(1000 + 5000 + 1 - 2048);
      expect((await objects(u)).size).toBe(0);
      await u.ok(['resize', '--add', refused![2]]);
      expect((await deploy(u, root)).lines[0]).toBe('Deployed 3 files (3 uploaded, 0 unchanged)');
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    "an expired tape, a keypair that is not the tape's, a wallet that cannot pay, an unreachable gateway",
    async () => {
      const { u, tape } = await withTape();
      const root = site({ 'index.html': 'hello', 'a.txt': 'a' });

      const stranger = new CliUser(gw);
      desk.users.push(stranger);
      const strangerKey = await stranger.fundedWallet();
      expect(await stranger.fails(['deploy', join(root, 'index.html'), '--tape', tape])).toMatch(
        new RegExp(
          `^unauthorized signer: ${strangerKey} is not the tape's keypair or its delegate for tape ${tape}`,
        ),
      );

      // A deploy costs the Publish's fee only: a wallet with no SOL at all cannot pay it.
      const poorKey = join(u.configDir, 'poor.json');
      await u.ok(['keygen', '-k', poorKey]);
      expect(await u.fails(['deploy', join(root, 'index.html'), '-k', poorKey])).toMatch(
        /^insufficient funds: this deploy needs about 0\.0000\d+ SOL, wallet \S+ has 0 SOL/,
      );

      const dead = `http://127.0.0.1:${await freePort()}`;
      expect(
        await u.fails(['deploy', join(root, 'index.html')], { env: { TAPE_GATEWAY: dead } }),
      ).toMatch(new RegExp(`^cannot reach the gateway at ${dead.replace(/[.:/]/g, '\\$&')}`));
      expect(await u.fails(['deploy', join(root, 'index.html'), '-u', dead])).toBe(
        `cannot reach the chain RPC at ${dead}`,
      );
      expect((await objects(u)).size).toBe(0);

      await u.ok(['create', '--capacity', '1k', '--epochs', '1']);
      await new Promise((r) => setTimeout(r, 4000));
      // Not "tape extend": the program refuses that too. What an expired tape still allows.
      expect(await u.fails(['deploy', join(root, 'index.html')])).toMatch(
        /^tape \S+ expired .*: it cannot be extended, resized or written to, and its site answers 410 Gone; no new version can be published .*tape create --capacity <size> --duration <time>, then tape deploy$/,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'an interrupted deploy leaves the old version whole; running it again resumes',
    async () => {
      const { u, label } = await withTape('20m');
      // Files over 64 KiB are not packed (here streamed: 2 segments and a manifest each), so
      // the interruption lands midway through the uploads.
      const root = site(generateSite(60, 60 * 70 * 1024, 'v1'));
      const first = await u.run(['deploy', join(root, 'index.html')]);
      expect(first.code).toBe(0);
      const all = Number(/^uploading (\d+) files/m.exec(first.stderr)![1]);
      const before = await objects(u);
      writeSite(generateSite(60, 60 * 70 * 1024, 'v2'), root);
      const interrupted = await u.run(['deploy', join(root, 'index.html')], {
        env: { TAPE_UPLOAD_CONCURRENCY: '1' },
        onStderr: (text, child) => {
          if (/^uploaded /m.test(text)) child.kill('SIGINT');
        },
      });
      expect(interrupted.code).toBe(130);
      expect(interrupted.stderr).toContain('interrupted: the site is unchanged');
      const during = await objects(u);
      // Nothing names the new bytes until the Publish: version 1 is live, every file of it.
      for (const [name, o] of before) expect(during.get(name)).toEqual(o);
      expect((await open(`http://${label}.localhost:${gw.port}/`)).body.toString()).toContain(
        'generated v1',
      );
      const resumed = await u.run(['deploy', join(root, 'index.html'), '--concurrency', '8']);
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toMatch(/^Deployed 60 files \(60 uploaded, 0 unchanged\)$/m);
      // What was staged before the interruption is not sent again.
      const sent = Number(/^uploading (\d+) files/m.exec(resumed.stderr)![1]);
      console.log(`interrupted deploy: resumed with ${sent} of ${all} tracks to upload`);
      expect(sent).toBeLessThan(all);
      const v2Index = (await commitmentOfFile(join(root, 'index.html'))).commitment.toString('hex');
      const after = await objects(u);
      expect(after.get('index.html')).toMatchObject({ commitment: v2Index, version: 2 });
      expect((await deploy(u, root)).uploaded).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'a gateway and chain that vanish mid-deploy end it with one line naming the URL',
    async () => {
      const doomed = await startGateway();
      try {
        const u = new CliUser(doomed);
        desk.users.push(u);
        await u.fundedWallet();
        await u.ok(['create', '--capacity', '10m', '--duration', '1d']);
        // Files over 64 KiB: one upload each (small files would all go in one pack).
        const root = site(generateSite(40, 40 * 70 * 1024, 'gone'));
        const started = Date.now();
        const run = await u.run(['deploy', join(root, 'index.html')], {
          env: { TAPE_UPLOAD_CONCURRENCY: '1' },
          onStderr: (text) => {
            if (/^uploaded /m.test(text)) doomed.child.kill('SIGKILL');
          },
        });
        expect(run.code).toBe(1);
        const lines = run.stderr.trim().split('\n');
        const errors = lines.filter((l) => l.startsWith('error: '));
        expect(errors).toHaveLength(1);
        expect(errors[0]).toMatch(
          /^error: cannot reach the (chain RPC at http:\/\/127\.0\.0\.1:\d+|gateway at http:\/\/127\.0\.0\.1:\d+ \(\w+\))$/,
        );
        // No library noise, no stack trace, and no waiting for a dead node.
        expect(run.stderr).not.toMatch(/\n\s+at /);
        expect(lines.every((l) => /^(hashed|\d+ changed|uploading|uploaded|error:)/.test(l))).toBe(
          true,
        );
        expect(Date.now() - started).toBeLessThan(40_000);
      } finally {
        await doomed.stop('SIGKILL');
      }
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'a 1,000-file site deploys, and deploying it again uploads nothing',
    async () => {
      const { u } = await withTape('20m');
      const root = site(generateSite(1000, 1000 * 1024, 'k'));
      const first = await deploy(u, root);
      expect(first.lines[0]).toBe('Deployed 1000 files (1000 uploaded, 0 unchanged)');
      expect((await u.json<{ objects: number }>(['info'])).objects).toBe(1000);
      const again = await deploy(u, root);
      expect(again.lines[0]).toBe('Deployed 1000 files (0 uploaded, 1000 unchanged)');
      writeFileSync(join(root, 'section-3', 'page-0', 'file-3.json'), '{"changed":true}');
      mkdirSync(join(root, 'new dir'));
      writeFileSync(join(root, 'new dir', 'ñ.txt'), 'new');
      expect((await deploy(u, root)).lines[0]).toBe(
        'Deployed 1001 files (2 uploaded, 999 unchanged)',
      );
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'deploy --json prints the result as one JSON document',
    async () => {
      const { u, tape, label } = await withTape();
      const root = site({ 'index.html': 'j' });
      const result = await u.json<Record<string, unknown>>(['deploy', join(root, 'index.html')]);
      expect(result).toMatchObject({
        tape,
        label,
        url: `http://${label}.localhost:${gw.port}/`,
        host_url: `http://${label}.localhost:${gw.port}/`,
        path_url: `${gw.url}/site/${tape}/`,
        files: 1,
        uploaded: 1,
        unchanged: 0,
        version: 1,
        published: true,
      });
      expect(result.root).toMatch(/^[0-9a-f]{64}$/);
      await u.ok(['config', 'set', 'site_domain', 'sites.example.com']);
      expect((await deploy(u, root)).lines[2]).toBe(`URL:  https://${label}.sites.example.com/`);
    },
    TEST_TIMEOUT_MS,
  );
});
