import { Keypair } from '@solana/web3.js';
import { currentVersion } from '../src/chain/tape-history';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { versionedTrackAddress } from '../src/object/versioned-track';
import { commitmentOfBuffer } from '../src/tracks/commitment';
import { VersionEntry, compareNames } from '../src/versions/version-entry';
import { encodeRoot } from '../src/versions/version-nodes';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { LocalnetClient } from './support/clients/localnet-client';
import { TapeFixture, TestTape } from './support/clients/localnet-tapes';
import { siteGet } from './support/clients/site-http';
import {
  SiteVersion,
  buildSiteVersion,
  gatewayKeypair,
  publishIx,
  storeSiteVersion,
} from './support/fixtures/site-versions';

/**
 * Security finding 4 (hidden files and `.well-known/` served), after program 1.2.0: the program
 * no longer sees names, so a version naming `.env`, an ACME http-01 challenge or `.git/config`
 * can reach the chain whoever wrote it (here straight through @solana/web3.js with the storage
 * authority's own key, past the certifier that refuses such versions). Every reader must still
 * never serve those names, by path or by `/object` address.
 */
jest.setTimeout(120_000);

const HIDDEN = ['.env', '.well-known/acme-challenge/x', 'a/.git/config'];

describe('a version naming hidden files, written to the chain directly', () => {
  let gw: GatewayProcess;
  let client: LocalnetClient;
  let t: TapeFixture;
  let payer: Keypair;
  let tape: TestTape;
  let work: string;
  let version = 0;

  const site = (path: string) => siteGet(gw.url, `/site/${tape.address.toBase58()}${path}`);
  /** Stores its bytes in the gateway's store and publishes it with the authority's key. */
  const publishDirectly = async (next: SiteVersion) => {
    await storeSiteVersion(gw.dataDir, work, next);
    const authority = gatewayKeypair(gw.dataDir);
    const ix = publishIx(
      t.ix,
      { tape: tape.address, signer: tape.keypair.publicKey, storageAuthority: authority.publicKey },
      next,
      { version },
    );
    await client.send([ix], [payer, tape.keypair, authority]);
    version++;
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'hidden-names-'));
    gw = await startGateway({ env: { TAPE__STORAGE__GC__ENABLED: 'false' } });
    const rpcPort = Number(new URL(gw.rpcUrl).port);
    client = new LocalnetClient(gw.rpcUrl, `ws://127.0.0.1:${rpcPort + 1}`);
    t = new TapeFixture(client, gatewayKeypair(gw.dataDir));
    payer = await t.wallet();
    tape = await t.createTape(payer);
  });
  afterAll(async () => {
    client?.close();
    await gw?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('the control: the same route publishes and serves a visible name', async () => {
    await publishDirectly(
      buildSiteVersion({
        'a.b/c.txt': { bytes: Buffer.from('visible'), contentType: 'text/plain' },
      }),
    );
    const res = await site('/a.b/c.txt');
    expect([res.status, res.text]).toEqual([200, 'visible']);
  });

  it('serves none of the hidden names, by path or by /object address', async () => {
    const tracks = new Map<string, Buffer>();
    const entries: VersionEntry[] = [...HIDDEN, 'index.html'].sort(compareNames).map((name) => {
      const bytes = Buffer.from(`SECRET for ${name}\n`);
      const commitment = commitmentOfBuffer(bytes).commitment;
      tracks.set(commitment.toString('hex'), bytes);
      return {
        name,
        commitment,
        size: bytes.length,
        contentType: 'text/plain',
        metadata: Buffer.alloc(0),
        location: { kind: 'blob' as const },
      };
    });
    const byCommitment = [...entries].sort((a, b) => Buffer.compare(a.commitment, b.commitment));
    const rootBytes = encodeRoot({
      entryCount: entries.length,
      totalSize: entries.reduce((n, e) => n + e.size, 0),
      settings: Buffer.alloc(0),
      rules: Buffer.alloc(0),
      names: { tree: 'names', level: 0, entries },
      commits: { tree: 'commits', level: 0, entries: byCommitment },
    });
    const rootCommitment = commitmentOfBuffer(rootBytes).commitment;
    tracks.set(rootCommitment.toString('hex'), rootBytes);
    const hostile = {
      built: { rootCommitment, rootBytes, nodes: [] },
      entries,
      tracks,
      versionBytes: [...tracks.values()].reduce((n, b) => n + b.length, 0),
    } as unknown as SiteVersion;
    await publishDirectly(hostile);
    expect(currentVersion(await t.tape(tape.address))!.root.equals(rootCommitment)).toBe(true);

    for (const entry of entries.filter((e) => HIDDEN.includes(e.name))) {
      const byPath = await site(`/${entry.name}`);
      expect(byPath.status).not.toBe(200);
      expect(byPath.text).not.toContain('SECRET');
      const address = versionedTrackAddress(tape.address, entry.commitment);
      const byAddress = await siteGet(gw.url, `/object/${address}`);
      expect(byAddress.status).not.toBe(200);
      expect(byAddress.text).not.toContain('SECRET');
    }
  });
});
