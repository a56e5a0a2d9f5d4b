import { Connection, PublicKey } from '@solana/web3.js';
import { join } from 'node:path';
import { decodeTape, TapeRecord } from '../src/chain/account-layouts';
import { CliUser, keyValues } from './support/clients/cli';
import { removeSite, writeSite } from './support/fixtures/site-dir';
import { GatewayProcess, startGateway } from './support/processes/gateway';

/**
 * Issue 32, history and previews from the CLI: `tape versions`, `rollback`, `deploy --alias`,
 * `promote`, `alias rm` and `keep` against a real gateway and its embedded network, checked on
 * the chain (the tape account, decoded here) and in what the commands print. What the gateway
 * serves at pinned and alias URLs is test/site-history.e2e-spec.ts's.
 */
jest.setTimeout(300_000);

interface VersionsJson {
  current: number;
  latest: number;
  keep: number;
  versions: Array<{
    version: number;
    files: number;
    bytes: number;
    aliases: string[];
    current: boolean;
  }>;
}

describe('tape versions, rollback, deploy --alias, promote, alias rm, keep', () => {
  let gw: GatewayProcess;
  let user: CliUser;
  let tape: string;
  let label: string;
  const sites: string[] = [];

  /** The tape account as the chain holds it. */
  const chainTape = async (): Promise<TapeRecord> => {
    const connection = new Connection(gw.rpcUrl, 'confirmed');
    const info = await connection.getAccountInfo(new PublicKey(tape));
    return decodeTape(info!.data);
  };
  const kept = (t: TapeRecord) => t.history.map((v) => v.version);

  /** A site of `files` pages whose index.html says `seed`. */
  const deploy = async (seed: string, files: number, extra: string[] = []) => {
    const pages: Record<string, string> = { 'index.html': `<h1>${seed}</h1>` };
    for (let i = 1; i < files; i++) pages[`p${i}.html`] = `<p>${seed} ${i}</p>`;
    const root = writeSite(pages);
    sites.push(root);
    return user.ok(['deploy', join(root, 'index.html'), '--prune', '--yes', ...extra]);
  };

  beforeAll(async () => {
    gw = await startGateway();
    user = new CliUser(gw);
    await user.fundedWallet();
    const created = keyValues(await user.ok(['create', '--capacity', '8m', '--duration', '1d']));
    tape = created['tape address'];
    label = created.label;
    await deploy('v1', 2);
    await deploy('v2', 3);
    await deploy('v3', 4);
  });

  afterAll(async () => {
    await gw?.stop();
    sites.forEach(removeSite);
    user?.cleanup();
  });

  it('lists the kept versions newest first, with their files and bytes', async () => {
    const listed = await user.json<VersionsJson>(['versions']);
    expect(listed).toMatchObject({ current: 3, latest: 3, keep: 10 });
    expect(listed.versions.map((v) => [v.version, v.files, v.current])).toEqual([
      [3, 4, true],
      [2, 3, false],
      [1, 2, false],
    ]);
    const t = await chainTape();
    expect(listed.versions.map((v) => v.bytes)).toEqual(
      [...t.history].reverse().map((v) => v.bytes),
    );
    const text = await user.ok(['versions']);
    const lines = text.trim().split('\n');
    expect(lines[0]).toMatch(/^VERSION\s+PUBLISHED\s+FILES\s+BYTES\s+ALIASES$/);
    expect(lines[1]).toMatch(/^\*3\s+\d{4}-\d\d-\d\dT\S+\s+4\s+\d+\s+-$/);
    expect(lines.slice(2).map((l) => l.split(/\s+/)[1])).toEqual(['2', '1']);
  });

  it('rolls back one version, then to --to 1, in one transaction each; nothing is lost', async () => {
    const before = await chainTape();
    const out = keyValues(await user.ok(['rollback']));
    expect(out).toMatchObject({ 'tape address': tape, version: '2 (was 3)' });
    expect(out.URL).toBe(`http://${label}.localhost:${gw.port}/`);
    const after = await chainTape();
    expect(after).toMatchObject({ version: 2, latestVersion: 3, sequence: before.sequence + 1 });
    expect(after.keptBytes).toBe(before.keptBytes);
    const json = await user.json<{ version: number; previous: number; changed: boolean }>([
      'rollback',
      '--to',
      '1',
    ]);
    expect(json).toMatchObject({ version: 1, previous: 2, changed: true });
    expect(await chainTape()).toMatchObject({ version: 1, sequence: before.sequence + 2 });
    expect(kept(await chainTape())).toEqual([1, 2, 3]);
    // Already there: nothing is sent.
    expect(keyValues(await user.ok(['rollback', '--to', '1'])).version).toBe('1 (unchanged)');
    expect((await chainTape()).sequence).toBe(before.sequence + 2);
  });

  it('refuses what the tape does not keep, in one line', async () => {
    expect(await user.fails(['rollback', '--to', '9'])).toBe(
      'version 9 is not kept (kept: 1, 2, 3)',
    );
    expect(await user.fails(['rollback'])).toBe('no kept version before version 1 (kept: 1, 2, 3)');
    expect(await user.fails(['rollback', '--to', 'x'])).toMatch(/^bad version 'x'/);
    expect(await user.fails(['promote', 'nope'])).toBe(
      'no alias nope on this tape (it has no aliases)',
    );
    expect(await user.fails(['keep', '17'])).toMatch(/^bad keep '17'/);
  });

  it('deploys under an alias without touching the live version, then promotes it', async () => {
    const out = await deploy('preview', 5, ['--alias', 'pr-7']);
    const lines = keyValues(out);
    expect(lines.URL).toBe(`http://pr-7--${label}.localhost:${gw.port}/`);
    expect(lines.Path).toBe(`${gw.url}/site/${tape}@pr-7/`);
    const t = await chainTape();
    expect(t).toMatchObject({
      version: 1,
      latestVersion: 4,
      aliases: [{ name: 'pr-7', version: 4 }],
    });
    expect(kept(t)).toEqual([1, 2, 3, 4]);
    const listed = await user.json<VersionsJson>(['versions']);
    expect(listed.versions[0]).toMatchObject({
      version: 4,
      files: 5,
      aliases: ['pr-7'],
      current: false,
    });
    expect(await user.fails(['deploy', join(sites[0], 'index.html'), '--alias', 'v2'])).toMatch(
      /^bad alias 'v2'/,
    );
    // What a CI job reads: the preview's URLs in --json.
    const ci = JSON.parse(await deploy('ci', 2, ['--alias', 'pr-8', '--json'])) as Record<
      string,
      unknown
    >;
    expect(ci).toMatchObject({
      alias: 'pr-8',
      url: `http://pr-8--${label}.localhost:${gw.port}/`,
      path_url: `${gw.url}/site/${tape}@pr-8/`,
      version: 5,
      published: true,
    });
    expect((await chainTape()).aliases).toEqual([
      { name: 'pr-7', version: 4 },
      { name: 'pr-8', version: 5 },
    ]);
    await user.ok(['alias', 'rm', 'pr-8']);

    expect(keyValues(await user.ok(['promote', 'pr-7']))).toMatchObject({
      version: '4 (was 1)',
      alias: 'pr-7',
    });
    expect(await chainTape()).toMatchObject({ version: 4, latestVersion: 5 });
  });

  it('removes an alias, and keeps fewer versions with tape keep', async () => {
    expect(keyValues(await user.ok(['alias', 'rm', 'pr-7'])).removed).toBe('pr-7');
    expect((await chainTape()).aliases).toEqual([]);
    expect(await user.fails(['alias', 'rm', 'pr-7'])).toBe(
      'no alias pr-7 on this tape (it has no aliases)',
    );
    await user.ok(['keep', '2']);
    const t = await chainTape();
    expect(t.keep).toBe(2);
    // Current 4, and the two newest: 4 and 5 (the removed preview).
    expect(kept(t)).toEqual([4, 5]);
    const listed = await user.json<VersionsJson>(['versions']);
    expect(listed.versions.map((v) => v.version)).toEqual([5, 4]);
    // A new live deploy: 6 is current, 5 stays as the newest but one, 4 goes.
    await deploy('v6', 2);
    expect(kept(await chainTape())).toEqual([5, 6]);
    expect(await user.fails(['rollback', '--to', '4'])).toBe('version 4 is not kept (kept: 5, 6)');
  });
});
