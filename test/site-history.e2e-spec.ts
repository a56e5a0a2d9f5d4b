import { Connection, PublicKey } from '@solana/web3.js';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeTape, TapeRecord } from '../src/chain/account-layouts';
import { commitmentOfBuffer } from '../src/tracks/commitment';
import { CLI_ENTRY, CliUser, keyValues } from './support/clients/cli';
import { removeSite, writeSite } from './support/fixtures/site-dir';
import { eventually } from './support/jest/eventually';
import { GatewayProcess, REPO_ROOT, startGateway } from './support/processes/gateway';
import { metricsText, sample } from './support/clients/metrics-text';
import { isStored, storedBytes } from './support/clients/object-http';
import { siteGet, SiteResponse } from './support/clients/site-http';

/**
 * History, rollback, pinned URLs and previews (issue 32; docs/site.md, "Pinned and alias
 * URLs"; docs/versions.md, "History and aliases"), with real processes: a writer gateway (the
 * local network embedded, the default collector settings) and a reader gateway on its own
 * data directory (the writer's `tracks` directory as a shared volume, no key, its own
 * subscription), the built `tape` CLI, and the preview recipe `scripts/deploy-preview.sh`.
 */
jest.setTimeout(600_000);

const IMMUTABLE = 'public, max-age=31536000, immutable';
const BIG = 150 * 1024; // over 64 KiB: a blob of its own, unique to its version

interface Version {
  n: number;
  index: string;
  /** Commitment (hex) of the version's own big file: its unique bytes. */
  big: string;
}

describe('site history: rollback, pinned versions, previews', () => {
  let writer: GatewayProcess;
  let reader: GatewayProcess;
  let readerDir: string;
  let owner: CliUser;
  let tape: string;
  let label: string;
  let root: string;
  const versions = new Map<number, Version>();
  const cleanups: (() => void)[] = [];

  const site = (gw: GatewayProcess, path: string, host?: string): Promise<SiteResponse> =>
    host === undefined ? siteGet(gw.url, `/site/${tape}${path}`) : siteGet(gw.url, path, { host });
  const live = (gw: GatewayProcess) => site(gw, '/');
  const chain = () => new Connection(writer.rpcUrl, 'confirmed');
  const record = async (): Promise<TapeRecord> => {
    const info = await chain().getAccountInfo(new PublicKey(tape));
    return decodeTape(info!.data);
  };
  /** Writes version n's files (index.html, its own big file, a shared stylesheet) and deploys it. */
  const deploy = async (n: number, extra: string[] = []): Promise<Version> => {
    const big = randomBytes(BIG);
    const index = `<!doctype html><link rel=stylesheet href=/site.css><h1>version ${n}</h1>`;
    writeSite({ 'index.html': index, 'big.bin': big, 'site.css': 'h1{color:teal}' }, root);
    await owner.ok(['deploy', join(root, 'index.html'), ...extra]);
    const v = { n, index, big: commitmentOfBuffer(big).commitment.toString('hex') };
    return v;
  };
  /** What the gateway received: uploads answered and track bytes written. */
  const received = async (gw: GatewayProcess) => {
    const text = await metricsText(gw);
    const uploads = text
      .split('\n')
      .filter((l) => l.startsWith('tape_http_requests_total{listener="main",kind="upload"'))
      .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    return { uploads, bytes: sample(text, 'tape_track_store_written_bytes_total') };
  };
  /** ms until both gateways serve version n at "/" (its body and X-Tape-Version). */
  const bothServe = (v: Version) =>
    Promise.all(
      [writer, reader].map((gw) =>
        eventually(
          `${gw === writer ? 'the writer' : 'the reader'} serves version ${v.n} at /`,
          async () => {
            const res = await live(gw);
            return res.headers['x-tape-version'] === String(v.n) && res.text === v.index;
          },
          { timeoutMs: 10_000, everyMs: 5 },
        ),
      ),
    );

  beforeAll(async () => {
    writer = await startGateway();
    readerDir = mkdtempSync(join(tmpdir(), 'tape-history-reader-'));
    symlinkSync(join(writer.dataDir, 'tracks'), join(readerDir, 'tracks'));
    reader = await startGateway({ rpcUrl: writer.rpcUrl, dataDir: readerDir });
    owner = new CliUser(writer);
    cleanups.push(() => owner.cleanup());
    await owner.fundedWallet();
    const created = keyValues(await owner.ok(['create', '--capacity', '20m', '--duration', '1d']));
    tape = created['tape address'];
    label = created.label;
    root = writeSite({});
    cleanups.push(() => removeSite(root));
  });

  afterAll(async () => {
    for (const gw of [reader, writer]) await gw?.stop();
    if (readerDir) rmSync(readerDir, { recursive: true, force: true });
    cleanups.forEach((c) => c());
  });

  it('rolls back to version 1 on both gateways within 2 s with nothing uploaded; version 2 stays pinned', async () => {
    for (const n of [1, 2, 3]) versions.set(n, await deploy(n));
    await bothServe(versions.get(3)!);
    const before = await Promise.all([received(writer), received(reader)]);

    await owner.ok(['rollback', '--to', '1']);
    const returned = Date.now();
    await bothServe(versions.get(1)!);
    const fresh = Date.now() - returned;
    console.log(`rollback: version 1 served by both gateways ${fresh} ms after tape rollback`);
    expect(fresh).toBeLessThan(2_000);
    // Nothing was uploaded to either gateway: no upload request, no byte written.
    expect(await Promise.all([received(writer), received(reader)])).toEqual(before);
    const after = await record();
    expect([after.version, after.latestVersion]).toEqual([1, 3]);

    // Version 2 at its pinned URLs, immutable and noindex, on both gateways.
    for (const gw of [writer, reader]) {
      for (const res of [await site(gw, '@2/'), await site(gw, '/', `v2--${label}.localhost`)]) {
        expect([res.status, res.text]).toEqual([200, versions.get(2)!.index]);
        expect(res.headers['x-tape-version']).toBe('2');
        expect(res.headers['cache-control']).toBe(IMMUTABLE);
        expect(res.headers['x-robots-tag']).toBe('noindex');
      }
      const big = await site(gw, '@2/big.bin');
      expect(commitmentOfBuffer(big.body).commitment.toString('hex')).toBe(versions.get(2)!.big);
    }
    // The live site keeps its revalidation and is indexable.
    const now = await live(writer);
    expect(now.headers['cache-control']).toBe('public, max-age=60, must-revalidate');
    expect(now.headers['x-robots-tag']).toBeUndefined();
    // Hostile or unknown selectors: clear refusals.
    expect((await site(writer, '@9/')).status).toBe(404);
    expect((await site(writer, '@9/')).text).toContain('version_not_kept');
    for (const bad of ['@0/', '@v2/', '@99999999999999999999/', '@Pr-1/', '@a--b/']) {
      expect([bad, (await site(writer, bad)).status]).toEqual([bad, 400]);
    }
    for (const host of [`v0--${label}.localhost`, `nope_x--${label}.localhost`]) {
      expect([host, (await site(writer, '/', host)).status]).toEqual([host, 400]);
    }
  });

  it('collects the oldest versions once they leave the kept set, freeing their unique bytes', async () => {
    // Keep 2: kept = current (1) ∪ the newest two (2, 3): nothing goes.
    await owner.ok(['keep', '2']);
    expect((await record()).history.map((v) => v.version)).toEqual([1, 2, 3]);
    const v1 = versions.get(1)!;
    const v2 = versions.get(2)!;
    expect([isStored(writer.dataDir, v1.big), isStored(writer.dataDir, v2.big)]).toEqual([
      true,
      true,
    ]);
    // Back to version 3, sent by the owner (no Publish through the gateway): kept = {3} ∪
    // {2, 3}; version 1 leaves the table and its own bytes go at the collector's next pass.
    const v1Bytes = storedBytes(writer.dataDir, [v1.big]);
    expect(v1Bytes).toBeGreaterThan(BIG);
    await owner.ok(['rollback', '--to', '3']);
    const sent = Date.now();
    await eventually("version 1's own bytes collected", () => !isStored(writer.dataDir, v1.big), {
      timeoutMs: 20_000,
      everyMs: 20,
    });
    console.log(
      `collector: version 1 (${v1Bytes} bytes) freed ${Date.now() - sent} ms after tape rollback evicted it`,
    );
    expect(isStored(writer.dataDir, v2.big)).toBe(true);
    // Version 4 live: kept = {3, 4}; version 2 leaves the table.
    const v2Bytes = storedBytes(writer.dataDir, [v2.big]);
    const v4 = await deploy(4);
    const deployed = Date.now();
    versions.set(4, v4);
    await bothServe(v4);
    const table = await record();
    expect(table.history.map((v) => v.version)).toEqual([3, 4]);
    await eventually("version 2's own bytes collected", () => !isStored(writer.dataDir, v2.big), {
      timeoutMs: 20_000,
      everyMs: 20,
    });
    console.log(
      `collector: version 2 (${v2Bytes} bytes) freed ${Date.now() - deployed} ms after the deploy of version 4`,
    );
    expect(storedBytes(writer.dataDir, [v1.big, v2.big])).toBe(0);
    // The kept versions' bytes stay, and serve.
    for (const n of [3, 4]) expect(isStored(writer.dataDir, versions.get(n)!.big)).toBe(true);
    expect((await site(reader, '@3/')).text).toBe(versions.get(3)!.index);
    const evicted = await site(reader, '@1/');
    expect([evicted.status, evicted.text.includes('version_not_kept')]).toEqual([404, true]);
    // kept_bytes certified at the last Publish: the two kept versions' unique bytes.
    expect(table.keptBytes).toBeLessThan(4 * BIG);
    expect(table.keptBytes).toBeGreaterThan(2 * BIG);
  });

  it('deploys a pull request preview with the CI recipe: its host answers noindex, / unchanged; promote switches / in one transaction', async () => {
    const liveBefore = await live(writer);
    const liveVersion = liveBefore.headers['x-tape-version'];
    // The CI runner: its own key (the tape's delegate, with SOL for fees) from its environment;
    // none of the owner's files (docs/site.md, "A preview per pull request").
    const runner = new CliUser(writer);
    cleanups.push(() => runner.cleanup());
    const keyFile = join(runner.configDir, 'ci-deploy.json');
    const ciKey = /pubkey:\s+(\S+)/.exec(await runner.ok(['keygen', '-k', keyFile]))![1];
    await runner.ok(['airdrop', '--sol', '2', '-k', keyFile]);
    await owner.ok(['delegate', ciKey]);
    const deployKey = readFileSync(keyFile, 'utf8');
    rmSync(keyFile);
    const preview = writeSite({
      'index.html': '<!doctype html><h1>pull request 7</h1>',
      'site.css': 'h1{color:purple}',
    });
    cleanups.push(() => removeSite(preview));
    const script = await run('bash', [join(REPO_ROOT, 'scripts', 'deploy-preview.sh'), preview], {
      TAPE: `${process.execPath} ${CLI_ENTRY}`,
      TAPE_CONFIG_DIR: runner.configDir,
      XDG_CACHE_HOME: join(runner.configDir, 'cache'),
      TAPE_RPC_URL: writer.rpcUrl,
      TAPE_GATEWAY: writer.url,
      TAPE_DEPLOY_KEY: deployKey,
      TAPE_ADDRESS: tape,
      GITHUB_REF: 'refs/pull/7/merge',
    });
    expect(script.code).toBe(0);
    const printed = script.stdout.trim();
    expect(printed).toContain(`pr-7--${label}.`);
    const table = await record();
    const previewVersion = table.aliases.find((a) => a.name === 'pr-7')!.version;
    expect(table.version).toBe(Number(liveVersion));

    for (const gw of [writer, reader]) {
      await eventually('the preview host answers', async () => {
        const res = await site(gw, '/', `pr-7--${label}.localhost`);
        return res.status === 200;
      });
      for (const res of [
        await site(gw, '/', `pr-7--${label}.localhost:8080`),
        await site(gw, '@pr-7/'),
      ]) {
        expect(res.text).toContain('pull request 7');
        expect(res.headers['x-robots-tag']).toBe('noindex');
        expect(res.headers['x-tape-version']).toBe(String(previewVersion));
        expect(res.headers['cache-control']).toBe('public, max-age=60, must-revalidate');
      }
      // "/" is unchanged.
      const still = await live(gw);
      expect([still.headers['x-tape-version'], still.text]).toEqual([liveVersion, liveBefore.text]);
    }

    // Promote: one SetCurrent (the sequence moves by one), "/" switches on both gateways.
    const uploadsBefore = await received(writer);
    await owner.ok(['promote', 'pr-7']);
    const returned = Date.now();
    await Promise.all(
      [writer, reader].map((gw) =>
        eventually('/ serves the promoted preview', async () => {
          const res = await live(gw);
          return res.headers['x-tape-version'] === String(previewVersion);
        }),
      ),
    );
    console.log(
      `promote: / switched on both gateways ${Date.now() - returned} ms after tape promote`,
    );
    const promoted = await record();
    expect([promoted.version, promoted.sequence]).toEqual([previewVersion, table.sequence + 1]);
    expect(await received(writer)).toEqual(uploadsBefore);
    expect((await live(reader)).text).toContain('pull request 7');
  });
});

function run(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) console.log(`deploy-preview.sh failed:\n${stderr}${stdout}`);
      resolve({ code, stdout, stderr });
    });
  });
}
