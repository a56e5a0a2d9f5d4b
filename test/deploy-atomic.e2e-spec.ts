import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliUser, keyValues } from './support/clients/cli';
import { removeSite, writeSite } from './support/fixtures/site-dir';
import { eventually } from './support/jest/eventually';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { assetsNamed, hashedSite, seedOf, sha256Hex } from './support/fixtures/hashed-site';
import { siteGet } from './support/clients/site-http';

/**
 * Issue 31, "Done when": Atomic and Freshness. A 1,000-file site whose index.html names every
 * asset with its SHA-256 is redeployed with every file changed while visitors load pages through
 * a writer gateway (the local network embedded) and a reader gateway (its own data directory,
 * the writer's chain). Each page load is index.html, then assets it names, fetched after it:
 * every load must belong to one version. Then a redeploy killed (SIGKILL) midway through its
 * uploads: the old version stays whole and served, and running the deploy again finishes.
 *
 * The reader's track store is the writer's `tracks` directory (a symlink: a shared volume, as
 * an NFS mount would be; the shared-bucket topology is test/track-store-s3.e2e-spec.ts), so it
 * holds what `tape deploy` uploaded to the writer. The reader has no key: a real reader, which
 * learns of new versions from the chain (docs/versions.md, "Serving and invalidation").
 */
jest.setTimeout(600_000);

const FILES = 1000;
/** Assets a page load fetches after its index.html (a sample: every asset over the loads). */
const ASSETS_PER_LOAD = 12;
const FRESHNESS_LIMIT_MS = 2000;

interface Load {
  version: string;
  seed?: string;
  problems: string[];
  /** Its assets came (whole, as the page named them) from the version after the page's. */
  straddled: boolean;
}

describe('tape deploy is atomic: a 1,000-file redeploy through a writer and a reader', () => {
  let writer: GatewayProcess;
  let reader: GatewayProcess;
  let readerDir: string;
  let user: CliUser;
  let tape: string;
  let root: string;

  const get = (gw: GatewayProcess, path: string) => siteGet(gw.url, `/site/${tape}${path}`);
  /** The site directory holds version `seed` only, as a bundler's fresh output would. */
  const deploySite = (seed: string) => {
    rmSync(root, { recursive: true, force: true });
    writeSite(hashedSite({ count: FILES, totalBytes: 16 * 1000 * 1000, seed }), root);
  };

  /**
   * One page load: index.html, then a sample of the assets it names, each checked against it:
   * answered, with the bytes the page names, from the page's version or a later one (a page
   * loaded just before the switch fetches its assets from the new version, which keeps the old
   * version's names: what hashed names are for), never an earlier one.
   */
  const loadPage = async (gw: GatewayProcess, sample: number): Promise<Load> => {
    const index = await get(gw, '/');
    const version = String(index.headers['x-tape-version']);
    const problems: string[] = [];
    let straddled = false;
    const seed = seedOf(index.text);
    if (index.status !== 200) problems.push(`index.html answered ${index.status}`);
    if (seed !== `v${version}`)
      problems.push(`index.html of ${seed} under X-Tape-Version ${version}`);
    const assets = assetsNamed(index.text);
    if (assets.length !== FILES - 1) problems.push(`index.html names ${assets.length} assets`);
    const picked =
      sample >= assets.length
        ? assets
        : Array.from({ length: sample }, () => assets[Math.floor(Math.random() * assets.length)]);
    for (const asset of picked) {
      const r = await get(gw, `/${asset.name}`);
      const assetVersion = String(r.headers['x-tape-version']);
      if (r.status !== 200) problems.push(`${asset.name}: ${r.status}`);
      else if (sha256Hex(r.body) !== asset.sha256)
        problems.push(`${asset.name}: other bytes (X-Tape-Version ${assetVersion})`);
      if (!(Number(assetVersion) >= Number(version)))
        problems.push(
          `${asset.name}: X-Tape-Version ${assetVersion} under index.html of ${version}`,
        );
      if (assetVersion !== version) straddled = true;
    }
    return { version, seed, problems, straddled };
  };

  /** Visitors on both gateways loading pages until `stop`; what they saw. */
  const visitors = () => {
    let polling = true;
    const seen = new Map<GatewayProcess, Set<string>>();
    const mixed: string[] = [];
    let loads = 0;
    let straddled = 0;
    const visit = async (gw: GatewayProcess) => {
      seen.set(gw, new Set());
      while (polling) {
        const load = await loadPage(gw, ASSETS_PER_LOAD);
        loads++;
        if (load.straddled) straddled++;
        seen.get(gw)!.add(load.version);
        const name = gw === reader ? 'reader' : 'writer';
        for (const p of load.problems) mixed.push(`${name}, load of version ${load.version}: ${p}`);
      }
    };
    const running = [visit(writer), visit(reader)];
    const stop = async () => {
      polling = false;
      await Promise.all(running);
    };
    active = { stop };
    return { seen, mixed, loads: () => loads, straddled: () => straddled, stop };
  };
  let active: { stop: () => Promise<void> } | undefined;
  // A test that fails midway still stops its visitors before the next one starts.
  afterEach(async () => {
    await active?.stop();
    active = undefined;
  });

  /** ms from now until `gw` serves index.html of version `n`. */
  const serves = (gw: GatewayProcess, n: number) =>
    eventually(
      `${gw === reader ? 'the reader' : 'the writer'} serves version ${n}`,
      async () => (await get(gw, '/')).headers['x-tape-version'] === String(n),
      { timeoutMs: 30_000, everyMs: 5 },
    );
  /** ms from now until the writer and the reader serve version `n`. */
  const bothServe = (n: number) => Promise.all([serves(writer, n), serves(reader, n)]);

  beforeAll(async () => {
    // Visitors here load thousands of pages a minute from one address: metering is not what
    // this test is about (test/metering-gateway.e2e-spec.ts is).
    const env = { TAPE__GATEWAY__METERING__ENABLED: 'false' };
    writer = await startGateway({ env });
    readerDir = mkdtempSync(join(tmpdir(), 'tape-reader-'));
    symlinkSync(join(writer.dataDir, 'tracks'), join(readerDir, 'tracks'));
    reader = await startGateway({ rpcUrl: writer.rpcUrl, dataDir: readerDir, env });
    const health = (await (await fetch(`${reader.url}/healthz`)).json()) as { role: string };
    expect(health.role).toBe('reader');
    user = new CliUser(writer);
    await user.fundedWallet();
    tape = keyValues(await user.ok(['create', '--capacity', '64m', '--duration', '1d']))[
      'tape address'
    ];
    root = mkdtempSync(join(tmpdir(), 'tape-atomic-site-'));
    deploySite('v1');
    await user.ok(['deploy', join(root, 'index.html')]);
    await bothServe(1);
  });

  afterAll(async () => {
    for (const gw of [reader, writer]) await gw?.stop();
    if (readerDir) rmSync(readerDir, { recursive: true, force: true });
    if (root) removeSite(root);
    user?.cleanup();
  });

  it('version 1 is whole on both gateways: every one of the 1,000 files', async () => {
    for (const gw of [writer, reader]) {
      const load = await loadPage(gw, FILES);
      expect(load).toEqual({ version: '1', seed: 'v1', problems: [], straddled: false });
    }
  });

  it('every page load during a redeploy of all 1,000 files is of one version; the reader is fresh within 2 s', async () => {
    deploySite('v2');
    const v = visitors();
    await eventually('both gateways loaded a page of version 1', () =>
      [writer, reader].every((gw) => v.seen.get(gw)?.has('1')),
    );
    const deployed = await user.run(['deploy', join(root, 'index.html')]);
    const [writerFresh, fresh] = await bothServe(2);
    expect({ code: deployed.code, stderr: deployed.code === 0 ? '' : deployed.stderr }).toEqual({
      code: 0,
      stderr: '',
    });
    expect(deployed.stdout).toMatch(/^Deployed 1000 files \(1000 uploaded, 0 unchanged\)$/m);
    console.log(
      `freshness: version 2 served by the reader ${fresh} ms, by the writer ${writerFresh} ms after tape deploy returned`,
    );
    // Some loads of version 2 on both gateways, then the visitors stop.
    const loadsAtSwitch = v.loads();
    await eventually(
      'both gateways loaded pages of version 2',
      () =>
        [writer, reader].every((gw) => v.seen.get(gw)!.has('2')) && v.loads() > loadsAtSwitch + 4,
      { timeoutMs: 60_000 },
    );
    await v.stop();
    console.log(
      `atomic redeploy: ${v.loads()} page loads, ${v.straddled()} of them across the switch (page of version 1, its assets answered by version 2), ${v.mixed.length} mixed`,
    );
    expect(v.mixed).toEqual([]);
    for (const gw of [writer, reader]) expect(v.seen.get(gw)).toEqual(new Set(['1', '2']));
    expect(fresh).toBeLessThanOrEqual(FRESHNESS_LIMIT_MS);
  });

  it('a deploy killed midway through its uploads leaves version 2 whole and served; running it again finishes', async () => {
    deploySite('v3');
    const v = visitors();
    await eventually('both gateways loaded a page', () =>
      [writer, reader].every((gw) => (v.seen.get(gw)?.size ?? 0) > 0),
    );
    let uploading = 0;
    let uploaded = 0;
    const killed = await user.run(['deploy', join(root, 'index.html')], {
      // One upload at a time: the kill lands with most of the version's tracks still to send.
      env: { TAPE_UPLOAD_CONCURRENCY: '1' },
      onStderr: (text, child) => {
        uploading ||= Number(/^uploading (\d+) files/m.exec(text)?.[1] ?? 0);
        uploaded += (text.match(/^uploaded /gm) ?? []).length;
        if (uploaded > 0) child.kill('SIGKILL');
      },
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(uploading).toBeGreaterThan(2);
    expect(uploaded).toBeLessThan(uploading);
    // Visitors keep loading for a while after the kill: nothing changes under them.
    const loadsAtKill = v.loads();
    await eventually('visitors loaded pages after the kill', () => v.loads() > loadsAtKill + 6, {
      timeoutMs: 60_000,
    });
    await v.stop();
    expect(v.mixed).toEqual([]);
    for (const gw of [writer, reader]) expect(v.seen.get(gw)).toEqual(new Set(['2']));
    // Version 2 is whole: every one of its files, on both gateways.
    for (const gw of [writer, reader]) {
      expect(await loadPage(gw, FILES)).toEqual({
        version: '2',
        seed: 'v2',
        problems: [],
        straddled: false,
      });
    }
    expect((await user.json<{ version: number }>(['info'])).version).toBe(2);

    const resumed = await user.run(['deploy', join(root, 'index.html')]);
    const [writerFresh, fresh] = await bothServe(3);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/^Deployed 1000 files \(1000 uploaded, 0 unchanged\)$/m);
    console.log(
      `killed deploy: ${uploaded} of ${uploading} tracks sent before SIGKILL; the rerun sent ${/^uploading (\d+) files/m.exec(resumed.stderr)?.[1]}; version 3 served by the reader ${fresh} ms, by the writer ${writerFresh} ms after the rerun returned`,
    );
    expect(fresh).toBeLessThanOrEqual(FRESHNESS_LIMIT_MS);
    // What was staged before the kill is not sent again.
    expect(Number(/^uploading (\d+) files/m.exec(resumed.stderr)![1])).toBeLessThan(uploading);
    for (const gw of [writer, reader]) {
      expect(await loadPage(gw, FILES)).toEqual({
        version: '3',
        seed: 'v3',
        problems: [],
        straddled: false,
      });
    }
  });
});
