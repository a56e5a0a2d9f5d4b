import { Keypair, PublicKey } from '@solana/web3.js';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ChainRpc } from '../src/chain/chain-rpc';
import { GatewayClient } from '../src/cli/deploy/gateway-client';
import { VersionPublisher } from '../src/cli/versions/version-publisher';
import { commitmentOfBuffer } from '../src/tracks/commitment';
import { FileTrackStore } from '../src/tracks/file-track-store';
import { VersionSite } from './support/fixtures/version-site';
import { versionedTrackAddress } from '../src/object/versioned-track';
import { ACROSS_PROCESSES, eventually } from './support/jest/eventually';
import { freePort } from './support/processes/free-port';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { LocalnetClient } from './support/clients/localnet-client';
import { TapeFixture, TestTape } from './support/clients/localnet-tapes';
import { siteGet, SiteResponse } from './support/clients/site-http';
import {
  buildSiteVersion,
  gatewayKeypair,
  publishIx,
  SiteFile,
  SiteVersion,
  storeSiteVersion,
} from './support/fixtures/site-versions';

/**
 * A site served from published versions (docs/versions.md, "Serving and invalidation"): a
 * writer gateway with the embedded network and a reader gateway on another data directory,
 * each fed the version's bytes into its own track store; the pointer switched by Publish,
 * signed by the tape key and the writer's storage-authority key.
 */
jest.setTimeout(240_000);

const html = (text: string): SiteFile => ({
  bytes: Buffer.from(text),
  contentType: 'text/html; charset=utf-8',
});
const js = (text: string): SiteFile => ({
  bytes: Buffer.from(text),
  contentType: 'text/javascript; charset=utf-8',
});
const hash = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex').slice(0, 12);

/** index.html naming its assets by content hash (as bundlers do), and those assets. */
function page(n: number): Record<string, SiteFile> {
  const app = js(`console.log("app of version ${n}");`);
  const css: SiteFile = { bytes: Buffer.from(`body{--v:${n}}`), contentType: 'text/css' };
  const appName = `assets/app.${hash(app.bytes)}.js`;
  const cssName = `assets/style.${hash(css.bytes)}.css`;
  return {
    'index.html': html(
      `<!doctype html><title>version ${n}</title><link href="/${cssName}"><script src="/${appName}"></script>`,
    ),
    [appName]: app,
    [cssName]: css,
  };
}

const LOGO: SiteFile = { bytes: randomBytes(100 * 1024 + 3), contentType: 'image/png' };
const VIDEO: SiteFile = {
  bytes: randomBytes(3 * 64 * 1024 + 777),
  contentType: 'video/mp4',
  stream: true,
};
const COMMON: Record<string, SiteFile> = {
  '404.html': html('<h1>not here</h1>'),
  'docs/index.html': html('<h1>docs</h1>'),
  'about.html': html('<h1>about</h1>'),
  'media/logo.png': LOGO,
  'media/video.mp4': VIDEO,
  '_site.json': { bytes: Buffer.from('{"max_age_secs": 60}'), contentType: 'application/json' },
};

/** The assets an index.html names. */
function assetsOf(index: string): string[] {
  return [...index.matchAll(/(?:href|src)="\/([^"]+)"/g)].map((m) => m[1]);
}

describe('site versions: served from the pointer, atomic, fresh on every gateway', () => {
  let writer: GatewayProcess;
  let reader: GatewayProcess;
  let client: LocalnetClient;
  let fixture: TapeFixture;
  let payer: Keypair;
  let tape: TestTape;
  let work: string;
  let v1: SiteVersion;
  let v2: SiteVersion;
  const gcOff = { TAPE__STORAGE__GC__ENABLED: 'false' };

  const site = (gw: GatewayProcess, path: string, headers: Record<string, string> = {}) =>
    siteGet(gw.url, `/site/${tape.address.toBase58()}${path}`, { headers });
  const feed = async (version: SiteVersion) => {
    await storeSiteVersion(writer.dataDir, work, version);
    await storeSiteVersion(reader.dataDir, work, version);
  };
  const publish = async (next: SiteVersion, base: { version: number; site?: SiteVersion }) => {
    const authority = gatewayKeypair(writer.dataDir);
    const ix = publishIx(
      fixture.ix,
      {
        tape: tape.address,
        signer: tape.keypair.publicKey,
        storageAuthority: authority.publicKey,
      },
      next,
      base,
    );
    await client.send([ix], [payer, tape.keypair, authority]);
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'site-versions-'));
    writer = await startGateway({ env: gcOff });
    // The reader's PubSub URL leads nowhere: it learns of new versions by its polls (the
    // fallback), the writer by its subscription; both must serve a new version within 2 s.
    const deadPubSub = `ws://127.0.0.1:${await freePort()}`;
    reader = await startGateway({
      rpcUrl: writer.rpcUrl,
      env: { ...gcOff, TAPE__CHAIN__WS_URL: deadPubSub },
    });
    const rpcPort = Number(new URL(writer.rpcUrl).port);
    client = new LocalnetClient(writer.rpcUrl, `ws://127.0.0.1:${rpcPort + 1}`);
    fixture = new TapeFixture(client, gatewayKeypair(writer.dataDir));
    payer = await fixture.wallet();
    tape = await fixture.createTape(payer, 8 * 1024 * 1024);
    v1 = buildSiteVersion({ ...COMMON, ...page(1) });
    // Version 2 changes index.html and its assets' names; without prune it keeps the others.
    v2 = buildSiteVersion({ ...COMMON, ...page(1), ...page(2) });
  });

  afterAll(async () => {
    client?.close();
    for (const gw of [reader, writer]) await gw?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('serves version 1 from the pointer: paths, 404, packed, blob and streamed files, X-Tape-Version', async () => {
    // Before any Publish the tape serves its (absent) names, without X-Tape-Version.
    const before = await site(writer, '/');
    expect(before.status).toBe(404);
    expect(before.headers['x-tape-version']).toBeUndefined();
    await feed(v1);
    await publish(v1, { version: 0 });
    // The writer had the tape cached (404 above): the pointer's change reaches it from the chain.
    await eventually(
      'the writer serves version 1',
      async () => {
        const r = await site(writer, '/');
        return r.headers['x-tape-version'] === '1';
      },
      ACROSS_PROCESSES,
    );

    const files = { ...COMMON, ...page(1) };
    for (const gw of [writer, reader]) {
      for (const [name, file] of Object.entries(files)) {
        if (name === '_site.json') continue;
        const r = await site(gw, `/${name}`);
        expect([name, r.status, r.headers['x-tape-version']]).toEqual([name, 200, '1']);
        expect(r.body.equals(file.bytes)).toBe(true);
        expect(r.headers['content-type']).toBe(file.contentType);
        expect(r.headers.etag).toBe(
          `"${v1.entries.find((e) => e.name === name)!.commitment.toString('hex')}"`,
        );
      }
      const index = await site(gw, '/');
      expect(index.text).toContain('version 1');
      const missing = await site(gw, '/nothing-here.png');
      expect([missing.status, missing.text, missing.headers['x-tape-version']]).toEqual([
        404,
        '<h1>not here</h1>',
        '1',
      ]);
      expect((await site(gw, '/_site.json')).status).toBe(404);
      const docs = await site(gw, '/docs');
      expect([docs.status, docs.headers.location, docs.headers['x-tape-version']]).toEqual([
        308,
        `/site/${tape.address.toBase58()}/docs/`,
        '1',
      ]);
      expect((await site(gw, '/about')).text).toBe('<h1>about</h1>');
      const hidden = await site(gw, '/.env');
      expect(hidden.status).toBe(404);
      // A range of the streamed file across a segment boundary, byte for byte.
      const start = 64 * 1024 - 10;
      const ranged = await site(gw, '/media/video.mp4', { range: `bytes=${start}-${start + 99}` });
      expect(ranged.status).toBe(206);
      expect(ranged.body.equals(VIDEO.bytes.subarray(start, start + 100))).toBe(true);
      // Compression of a packed text file keeps the file's own ETag family.
      const gz = await site(gw, '/docs/index.html', { 'accept-encoding': 'gzip' });
      expect(gz.status).toBe(200);
    }
  });

  it('answers /object/<tape||commitment> for a file of a kept version, 400 for any other', async () => {
    const address = tape.address;
    const logo = commitmentOfBuffer(LOGO.bytes).commitment;
    const packed = v1.entries.find((e) => e.name === 'about.html')!;
    for (const gw of [writer, reader]) {
      const blob = await fetch(`${gw.url}/object/${versionedTrackAddress(address, logo)}`);
      expect(blob.status).toBe(200);
      expect(Buffer.from(await blob.arrayBuffer()).equals(LOGO.bytes)).toBe(true);
      expect(blob.headers.get('cache-control')).toContain('immutable');
      const small = await fetch(
        `${gw.url}/object/${versionedTrackAddress(address, packed.commitment)}`,
      );
      expect(await small.text()).toBe('<h1>about</h1>');
      const stranger = await fetch(
        `${gw.url}/object/${versionedTrackAddress(address, randomBytes(32))}`,
      );
      expect(stranger.status).toBe(400);
      expect(((await stranger.json()) as { error: { code: string } }).error.code).toBe(
        'track_not_certified',
      );
    }
  });

  it('switches every gateway to version 2 within 2 s of confirmation, never mixing versions', async () => {
    const unchanged = v1.entries.find((e) => e.name === 'media/logo.png')!;
    const etag = `"${unchanged.commitment.toString('hex')}"`;
    expect((await site(reader, '/')).headers['x-tape-version']).toBe('1');
    await feed(v2);

    // Pollers load the page and its assets on both gateways during the switch.
    let polling = true;
    const mixes: string[] = [];
    const seen = new Set<string>();
    const loads = new Set<GatewayProcess>();
    const poll = async (gw: GatewayProcess) => {
      while (polling) {
        const index = await site(gw, '/');
        const version = index.headers['x-tape-version'] as string;
        seen.add(version);
        if (!index.text.includes(`version ${version}<`))
          mixes.push(`index of ${version}: ${index.text}`);
        for (const asset of assetsOf(index.text)) {
          const r: SiteResponse = await site(gw, `/${asset}`);
          if (r.status !== 200 || !asset.includes(`.${hash(r.body)}.`))
            mixes.push(`${asset} (${r.status}) under index of version ${version}`);
        }
        loads.add(gw);
      }
    };
    const pollers = [poll(writer), poll(reader)];
    // Each poller has loaded version 1 at least once before the switch.
    await eventually('both pollers loaded a page', () => loads.size === 2);

    await publish(v2, { version: 1, site: v1 });
    const confirmedAt = Date.now();
    const served = await Promise.all(
      [writer, reader].map((gw) =>
        eventually(
          `${gw === reader ? 'reader' : 'writer'} serves version 2`,
          async () => {
            const r = await site(gw, '/');
            return r.headers['x-tape-version'] === '2' && r.text.includes('version 2<');
          },
          { timeoutMs: 10_000, everyMs: 20 },
        ).then(() => Date.now() - confirmedAt),
      ),
    );
    console.log(
      `version 2 served ${served[0]} ms (writer, by subscription) and ${served[1]} ms (reader, by polls) after Publish was confirmed`,
    );
    polling = false;
    await Promise.all(pollers);
    expect(mixes).toEqual([]);
    expect(seen).toEqual(new Set(['1', '2']));
    expect(Math.max(...served)).toBeLessThan(2000);

    for (const gw of [writer, reader]) {
      const r = await site(gw, '/media/logo.png', { 'if-none-match': etag });
      expect([r.status, r.headers.etag, r.headers['x-tape-version']]).toEqual([304, etag, '2']);
    }
    // The old index.html is in the previous version, still kept: its object stays served.
    const oldIndex = commitmentOfBuffer(page(1)['index.html'].bytes).commitment;
    const old = await fetch(
      `${reader.url}/object/${versionedTrackAddress(tape.address, oldIndex)}`,
    );
    expect(old.status).toBe(200);
  });

  it("serves a version published through the writer's upload and publish routes, as tape deploy will", async () => {
    const gateway = new GatewayClient(writer.url);
    const files = new VersionSite(8 * 1024 * 1024);
    files.write('index.html', '<!doctype html><title>version 3</title>');
    files.write('notes.txt', 'new in version 3');
    const planned = await files.plan(['index.html', 'notes.txt'], {
      entries: v2.entries,
      settings: v2.built.root.settings,
    });
    const rpc = new ChainRpc(client.connection, writer.rpcUrl, 'confirmed');
    const publisher = new VersionPublisher(gateway, rpc, fixture.ix, {
      concurrency: 4,
      segmentBytes: 8 * 1024 * 1024,
      storageAuthority: new PublicKey((await gateway.uploadConfig()).storageAuthority),
    });
    try {
      await publisher.publish({
        tape: tape.address,
        tapeSigner: tape.keypair,
        wallet: payer,
        expectedSequence: 2,
        pathOf: (file) => files.path(file.name),
        ...planned,
      });
    } finally {
      gateway.close();
    }
    // The reader is fed what the writer was sent: the new pack, the nodes and the root.
    const store = new FileTrackStore(join(reader.dataDir, 'tracks'), {
      indexPath: join(work, 'reader-v3.sqlite'),
    });
    const added = [planned.built.rootBytes, ...planned.built.nodes.map((n) => n.bytes)];
    for (const bytes of [...added, ...planned.plan.packs.map((p) => p.bytes)]) {
      const c = commitmentOfBuffer(bytes).commitment;
      if (!(await store.has(c))) await store.put(c, bytes.length, Readable.from([bytes]));
    }
    for (const gw of [writer, reader]) {
      await eventually('version 3 served', async () => {
        const r = await site(gw, '/notes.txt');
        return r.headers['x-tape-version'] === '3' && r.text === 'new in version 3';
      });
      expect((await site(gw, '/')).text).toBe('<!doctype html><title>version 3</title>');
      // What version 3 kept from version 2 is still served, with its ETag.
      expect((await site(gw, '/media/logo.png')).body.equals(LOGO.bytes)).toBe(true);
    }
  });
});
