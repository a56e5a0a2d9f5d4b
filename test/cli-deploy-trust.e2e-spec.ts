import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, PublicKey } from '@solana/web3.js';
import { CliDesk } from './support/labs/cli-desk';
import { CliUser } from './support/clients/cli';
import { writeSite } from './support/fixtures/site-dir';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { ACROSS_PROCESSES, eventually } from './support/jest/eventually';
import { metricsText, sample } from './support/clients/metrics-text';
import { siteGet } from './support/clients/site-http';

/**
 * Deploys people trust (issue 32): a directory or its index.html, the gateway's real URLs,
 * `--dry-run` (nothing signed, sent or uploaded: balances and the gateway's written bytes
 * unchanged, and its figures are what the deploy then spends), confirmation before `--prune`
 * and `object rm` of several names (on a pseudo-terminal, refused without one unless `--yes`),
 * and `.well-known/` names an operator allows, published and served end to end.
 */
/**
 * Roomy: the tests run at once (it.concurrent), four of them with gateways of their own, and each
 * runs tens of CLI processes; on the shared 2-core machine one took 290 s of its time.
 */
const TEST_TIMEOUT_MS = 600_000;
const SECURITY_TXT = 'Contact: mailto:security@example.com\nExpires: 2030-01-01T00:00:00Z\n';

interface DryRunJson {
  dry_run: true;
  url: string;
  host_url: string | null;
  path_url: string;
  version: number;
  would_publish: boolean;
  files: number;
  changed: number;
  unchanged: number;
  upload: { name: string; size: number }[];
  upload_tracks: number;
  upload_bytes: number;
  gateway_asked: boolean;
  prune: boolean;
  prunable: string[];
  added_bytes: number;
  fee_lamports: number;
  tokens: string;
  resize: { add: string; add_bytes: number; tokens: string; fee_lamports: number } | null;
  wallet: { address: string; lamports: number; tokens: string };
}

describe('deploys people trust', () => {
  let gw: GatewayProcess;
  const desk = new CliDesk();
  const site = (files: Record<string, string | Buffer>) => desk.site(files);
  const gateways: GatewayProcess[] = [];
  const withTape = (capacity = '10m', on: GatewayProcess = gw) => desk.withTape(on, capacity);
  const names = async (u: CliUser) =>
    (await u.json<{ name: string }[]>(['object', 'ls'])).map((o) => o.name);
  const version = async (u: CliUser) => (await u.json<{ version: number }>(['info'])).version;
  const writtenBytes = async (on: GatewayProcess) =>
    sample(await metricsText(on), 'tape_track_store_written_bytes_total');

  beforeAll(async () => {
    gw = await startGateway({
      config: { gateway: { site: { well_known_allow: ['.well-known/security.txt'] } } },
    });
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    await gw?.stop();
    desk.cleanup();
  });

  it.concurrent(
    "deploys a directory or its index.html and prints the gateway's real URLs",
    async () => {
      const { u, tape, label } = await withTape();
      const root = site({ 'index.html': '<h1>trust</h1>', 'a.css': 'body{}' });
      const out = (await u.ok(['deploy', root])).trimEnd().split('\n');
      const hostUrl = `http://${label}.localhost:${gw.port}/`;
      const pathUrl = `http://127.0.0.1:${gw.port}/site/${tape}/`;
      expect(out).toEqual([
        'Deployed 2 files (2 uploaded, 0 unchanged)',
        `Tape: ${tape}`,
        `URL:  ${hostUrl}`,
        `Path: ${pathUrl}`,
      ]);
      // Both URLs answer with the site, port included.
      const byHost = await siteGet(gw.url, '/', { host: new URL(hostUrl).host });
      expect([byHost.status, byHost.text]).toEqual([200, '<h1>trust</h1>']);
      const byPath = await siteGet(pathUrl, new URL(pathUrl).pathname);
      expect(byPath.status).toBe(200);
      expect(byPath.text).toBe('<h1>trust</h1>');

      // The index.html form deploys the same directory: nothing changed.
      const again = await u.run(['deploy', join(root, 'index.html'), '--json']);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({
        published: false,
        files: 2,
        url: hostUrl,
        host_url: hostUrl,
        path_url: pathUrl,
      });
      // A configured site domain is the host URL; the path URL stays the gateway's.
      const domain = await u.ok(['deploy', root], {
        env: { TAPE_SITE_DOMAIN: 'sites.example.com' },
      });
      expect(domain.trimEnd().split('\n').slice(2)).toEqual([
        `URL:  https://${label}.sites.example.com/`,
        `Path: ${pathUrl}`,
      ]);

      // Clear errors for what is not a site.
      expect(await u.fails(['deploy', join(root, 'nope')])).toBe(
        `no such file or directory: ${join(root, 'nope')} (give the site's directory or its index.html)`,
      );
      expect(await u.fails(['deploy', join(root, 'a.css')])).toBe(
        `${join(root, 'a.css')} is not a site directory or its index.html (give the site's directory or its index.html)`,
      );
      const empty = site({ 'about.html': 'x' });
      expect(await u.fails(['deploy', empty])).toBe(
        `no index.html in ${empty} (a site directory has one at its top)`,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    '--dry-run signs, sends and uploads nothing, and says what the deploy then spends',
    async () => {
      // A gateway of its own: its written-bytes counter sees no other test's uploads.
      const own = await startGateway();
      gateways.push(own);
      const { u, wallet } = await withTape('10m', own);
      const root = site({ 'index.html': 'v1', 'a.txt': 'a', 'b.txt': 'b1', 'c.txt': 'c' });
      await u.ok(['deploy', root]);
      writeSite({ 'b.txt': 'b2', 'd.txt': 'd' }, root);
      rmSync(join(root, 'c.txt'));

      const chain = new Connection(own.rpcUrl, 'confirmed');
      const balance = () => chain.getBalance(new PublicKey(wallet));
      const tokens = async () => (await u.json<{ tokens: string }>(['balance'])).tokens;
      const [lamportsBefore, tokensBefore, writtenBefore] = [
        await balance(),
        await tokens(),
        await writtenBytes(own),
      ];
      const dry = await u.json<DryRunJson>(['deploy', root, '--dry-run']);
      expect(dry).toMatchObject({
        dry_run: true,
        version: 1,
        would_publish: true,
        files: 4,
        changed: 2,
        unchanged: 2,
        gateway_asked: true,
        prune: false,
        prunable: ['c.txt'],
        tokens: '0',
        resize: null,
      });
      // b.txt and d.txt share the new pack the gateway lacks.
      expect(dry.upload).toEqual([
        { name: 'b.txt', size: 2 },
        { name: 'd.txt', size: 1 },
      ]);
      expect(dry.fee_lamports).toBeGreaterThan(0);
      const text = await u.ok(['deploy', root, '--dry-run', '--prune']);
      expect(text).toMatch(/^dry run: +nothing was signed, sent or uploaded$/m);
      expect(text).toMatch(/^version: +1 -> 2 \(would publish\)$/m);
      expect(text).toMatch(/^prune: +1 name would be removed \(--prune\)$/m);
      expect(text).toMatch(/^storage tokens: +0 \(a deploy spends no storage tokens/m);
      expect(text).toMatch(/^names removed by --prune:\n {2}c\.txt$/m);

      // Nothing moved: no SOL, no tokens, no byte written by the gateway, no version.
      expect(await balance()).toBe(lamportsBefore);
      expect(await tokens()).toBe(tokensBefore);
      expect(await writtenBytes(own)).toBe(writtenBefore);
      expect(await version(u)).toBe(1);
      expect(await names(u)).toEqual(['a.txt', 'b.txt', 'c.txt', 'index.html']);

      // The deploy itself spends exactly the fee and sends exactly the bytes the dry run said.
      const real = await u.json<{ bytes_uploaded: number; version: number }>(['deploy', root]);
      expect(real.version).toBe(2);
      expect(real.bytes_uploaded).toBe(dry.upload_bytes);
      // The counter the dry run left alone sees the deploy's bytes.
      expect(await writtenBytes(own)).toBeGreaterThanOrEqual(writtenBefore + dry.upload_bytes);
      expect(lamportsBefore - (await balance())).toBe(dry.fee_lamports);
      console.log(
        `dry run: fee ${dry.fee_lamports} lamports, ${dry.upload_tracks} tracks / ${dry.upload_bytes} bytes to upload; the deploy then took ${lamportsBefore - (await balance())} lamports and sent ${real.bytes_uploaded} bytes`,
      );
      expect(await tokens()).toBe(tokensBefore);
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    '--dry-run on a tape too small names the resize and what it costs',
    async () => {
      const { u } = await withTape('1m');
      const root = site({ 'index.html': 'x', 'big.bin': Buffer.alloc(1536 * 1024, 7) });
      const dry = await u.json<DryRunJson>(['deploy', root, '--dry-run']);
      expect(dry.tokens).toBe('0');
      expect(dry.resize).not.toBeNull();
      expect(BigInt(dry.resize!.tokens)).toBeGreaterThan(0n);
      expect(await u.fails(['deploy', root])).toMatch(
        new RegExp(`^insufficient capacity: .*tape resize --add ${dry.resize!.add}\\)$`),
      );
      const resized = await u.json<{ cost: { tokens: string } }>([
        'resize',
        '--add',
        dry.resize!.add,
      ]);
      expect(resized.cost.tokens).toBe(dry.resize!.tokens);
      expect((await u.json<{ version: number }>(['deploy', root])).version).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    '--prune and object rm of several names list them and ask on a terminal; refuse without one unless --yes',
    async () => {
      const { u, tape } = await withTape();
      const root = site({ 'index.html': 'v1', 'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c' });
      await u.ok(['deploy', root]);
      rmSync(join(root, 'b.txt'));
      rmSync(join(root, 'c.txt'));

      // No terminal, no --yes: refused before anything is sent.
      expect(await u.fails(['deploy', root, '--prune'])).toBe(
        `tape deploy --prune would remove 2 names from tape ${tape} (b.txt, c.txt) and there is no terminal to confirm it on: pass --yes to remove them; nothing was changed`,
      );
      expect(await version(u)).toBe(1);

      // On a terminal: the list, then [y/N]; "n" stops with nothing published.
      const declined = await u.onTerminal(['deploy', root, '--prune'], {
        when: /\[y\/N\] $/,
        type: 'n\n',
      });
      expect(declined.code).toBe(1);
      expect(declined.text).toContain(
        `tape deploy --prune will remove 2 names from tape ${tape}:\r\n  b.txt\r\n  c.txt\r\nRemove them? [y/N] `,
      );
      expect(declined.text).toContain('error: cancelled: nothing was removed or published');
      expect(await version(u)).toBe(1);

      const accepted = await u.onTerminal(['deploy', root, '--prune'], {
        when: /\[y\/N\] $/,
        type: 'y\n',
      });
      expect(accepted.code).toBe(0);
      expect(accepted.text).toMatch(/Deployed 2 files \(0 uploaded, 2 unchanged\)/);
      expect(await names(u)).toEqual(['a.txt', 'index.html']);
      // Nothing to remove: nothing asked, even without a terminal.
      expect((await u.run(['deploy', root, '--prune'])).code).toBe(0);

      writeSite({ 'x.txt': 'x', 'y.txt': 'y', 'z.txt': 'z' }, root);
      await u.ok(['deploy', root]);
      expect(await u.fails(['object', 'rm', 'x.txt', 'y.txt'])).toMatch(
        /^tape object rm would remove 2 names from tape \S+ \(x\.txt, y\.txt\) .*pass --yes/,
      );
      expect(await names(u)).toContain('x.txt');
      const rm = await u.onTerminal(['object', 'rm', 'x.txt', 'y.txt'], {
        when: /\[y\/N\] $/,
        type: 'yes\n',
      });
      expect(rm.code).toBe(0);
      expect(rm.text).toContain('  x.txt\r\n  y.txt\r\nRemove them? [y/N] ');
      expect(rm.text).toMatch(/removed x\.txt\r\nremoved y\.txt/);
      // One name is what was typed: no question. --yes for scripts.
      expect(await u.ok(['object', 'rm', 'z.txt'])).toBe('removed z.txt\n');
      ['x.txt', 'y.txt', 'z.txt'].forEach((n) => rmSync(join(root, n)));
      writeSite({ 'p.txt': 'p', 'q.txt': 'q' }, root);
      await u.ok(['deploy', root]);
      expect(await u.ok(['object', 'rm', 'p.txt', 'q.txt', '--yes'])).toBe(
        'removed p.txt\nremoved q.txt\n',
      );
      expect(await names(u)).toEqual(['a.txt', 'index.html']);
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    '.well-known/ names the operator allows are published and served; others never',
    async () => {
      const { u, tape, label } = await withTape();
      const config = (await (await fetch(`${gw.url}/upload/config`)).json()) as {
        well_known_allow: string[];
      };
      expect(config.well_known_allow).toEqual(['.well-known/security.txt']);
      const root = site({
        'index.html': 'home',
        '.well-known/security.txt': SECURITY_TXT,
        '.well-known/other.txt': 'not allowed',
        '.env': 'SECRET=1',
      });
      const dry = await u.json<DryRunJson>(['deploy', root, '--dry-run']);
      expect(dry.upload.map((f) => f.name)).toEqual(['.well-known/security.txt', 'index.html']);
      await u.ok(['deploy', root]);
      expect(await names(u)).toEqual(['.well-known/security.txt', 'index.html']);

      const host = `${label}.localhost:${gw.port}`;
      const served = await siteGet(gw.url, '/.well-known/security.txt', { host });
      expect(served.status).toBe(200);
      expect(served.text).toBe(SECURITY_TXT);
      expect(served.headers['content-type']).toMatch(/^text\/plain/);
      const byPath = await siteGet(gw.url, `/site/${tape}/.well-known/security.txt`);
      expect([byPath.status, byPath.text]).toEqual([200, SECURITY_TXT]);
      for (const path of ['/.well-known/other.txt', '/.well-known/', '/.env']) {
        const res = await siteGet(gw.url, path, { host });
        expect([path, res.status]).toEqual([path, 404]);
        expect(res.text).not.toContain('not allowed');
      }
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'a reader gateway serves the .well-known/ names its own list allows, and no other',
    async () => {
      const { u, tape } = await withTape();
      /** A reader on the writer's chain and track store (a shared volume), with its own list. */
      const reader = async (allow: string[]) => {
        const dir = mkdtempSync(join(tmpdir(), 'tape-reader-'));
        desk.removeLater(dir);
        symlinkSync(join(gw.dataDir, 'tracks'), join(dir, 'tracks'));
        const started = await startGateway({
          rpcUrl: gw.rpcUrl,
          dataDir: dir,
          config: { gateway: { site: { well_known_allow: allow } } },
        });
        gateways.push(started);
        return started;
      };
      const [strict, allowing] = await Promise.all([
        reader([]),
        reader(['.well-known/security.txt']),
      ]);
      const root = site({ 'index.html': 'readers', '.well-known/security.txt': SECURITY_TXT });
      await u.ok(['deploy', root]);
      const path = `/site/${tape}/.well-known/security.txt`;
      for (const r of [strict, allowing]) {
        await eventually(
          `the reader on ${r.url} serves the site`,
          async () => (await siteGet(r.url, `/site/${tape}/`)).text === 'readers',
          ACROSS_PROCESSES,
        );
      }
      expect((await siteGet(allowing.url, path)).text).toBe(SECURITY_TXT);
      const refused = await siteGet(strict.url, path);
      expect(refused.status).toBe(404);
      expect(refused.text).not.toContain('Contact:');
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'a writer whose operator drops a name refuses to certify a version holding it, until it is removed',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'tape-writer-'));
      desk.removeLater(dataDir);
      const allow = (list: string[]) => ({ gateway: { site: { well_known_allow: list } } });
      let writer = await startGateway({ dataDir, config: allow(['.well-known/security.txt']) });
      const target = { url: writer.url, rpcUrl: writer.rpcUrl };
      const u = new CliUser(target);
      desk.users.push(u);
      await u.fundedWallet();
      await u.ok(['create', '--capacity', '10m', '--duration', '1d']);
      const root = site({ 'index.html': 'v1', '.well-known/security.txt': SECURITY_TXT });
      await u.ok(['deploy', root]);
      expect(await names(u)).toEqual(['.well-known/security.txt', 'index.html']);

      // The same gateway and chain (its data directory), restarted without the name.
      await writer.stop();
      writer = await startGateway({ dataDir, config: allow([]) });
      gateways.push(writer);
      Object.assign(target, { url: writer.url, rpcUrl: writer.rpcUrl });
      writeSite({ 'index.html': 'v2' }, root);
      expect(await u.fails(['deploy', root])).toBe(
        'publish refused by the gateway: 422 ".well-known/security.txt": .well-known/ names are not published by this gateway unless its operator allows them (gateway.site.well_known_allow)',
      );
      expect(await version(u)).toBe(1);
      expect(await u.ok(['object', 'rm', '.well-known/security.txt'])).toBe(
        'removed .well-known/security.txt\n',
      );
      expect((await u.json<{ version: number }>(['deploy', root])).version).toBe(3);
      expect(await names(u)).toEqual(['index.html']);
    },
    TEST_TIMEOUT_MS,
  );
});
