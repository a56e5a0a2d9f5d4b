import { randomBytes } from 'node:crypto';
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CliUser } from './support/clients/cli';
import { ObjectFixture, SEGMENT_BYTES, startObjectFixture } from './support/labs/object-fixture';
import { siteGet } from './support/clients/site-http';

/** Every entry under `root` (itself included), relative to it, with its permission bits. */
function modes(root: string): Map<string, number> {
  const found = new Map<string, number>();
  const walk = (path: string) => {
    const stat = lstatSync(path);
    found.set(relative(root, path) || '.', stat.mode & 0o777);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(root);
  return found;
}

/**
 * The gateway's data directory holds the ledger, the track store, the reference databases, the
 * S3 credentials and keys: nothing in it may be readable by the group or others, whatever the
 * umask. The gateway (and the operator CLI) run here under umask 022, the usual default, with
 * a data directory they create themselves.
 */
describe('data directory permissions', () => {
  let parent: string;
  let dataDir: string;
  let fx: ObjectFixture | undefined;

  beforeAll(() => {
    parent = mkdtempSync(join(tmpdir(), 'tape-perms-'));
    dataDir = join(parent, 'data');
  });
  afterAll(async () => {
    await fx?.stop();
    rmSync(parent, { recursive: true, force: true });
  });

  it('creates every file 0600 and every directory 0700 under umask 022', async () => {
    // Children inherit the umask in force when they are spawned.
    const umask = process.umask(0o022);
    try {
      fx = await startObjectFixture({
        dataDir,
        env: { TAPE__STORAGE__SEGMENT_BYTES: String(SEGMENT_BYTES) },
      });
      const small = randomBytes(10_000);
      const big = randomBytes(SEGMENT_BYTES + 1000); // a manifest track and its segments
      for (const bytes of [small, big]) {
        const track = await fx.client.store(fx.wallet, fx.tape, bytes, 'text/plain', SEGMENT_BYTES);
        expect((await siteGet(fx.gw.url, `/object/${track.address}`)).status).toBe(200);
      }
      const operator = new CliUser(
        { url: fx.gw.url, rpcUrl: fx.gw.rpcUrl },
        { TAPE_DATA_DIR: dataDir },
      );
      try {
        await operator.ok([
          'gateway',
          'credentials',
          'issue',
          '--tape',
          fx.tape.address.toBase58(),
        ]);
      } finally {
        operator.cleanup();
      }
    } finally {
      process.umask(umask);
    }

    const found = modes(dataDir);
    // What the regression is about is there: the ledger (and its WAL), stored tracks, the
    // reference database, the credentials and their key, the gateway's keypair.
    const names = [...found.keys()];
    expect(names).toEqual(
      expect.arrayContaining([
        '.',
        'ledger.sqlite',
        'ledger.sqlite-wal',
        's3-credentials.sqlite',
        's3-credentials.key',
        'gateway-key.json',
      ]),
    );
    expect(names.filter((n) => n.startsWith('tracks/')).length).toBeGreaterThan(4);
    expect(names).toContain('tracks.references.sqlite');

    const open = [...found].filter(([, mode]) => (mode & 0o077) !== 0);
    expect(open.map(([name, mode]) => `${name} ${mode.toString(8)}`)).toEqual([]);
    for (const [name, mode] of found) {
      const directory = lstatSync(join(dataDir, name)).isDirectory();
      expect(`${name} ${mode.toString(8)}`).toBe(`${name} ${directory ? '700' : '600'}`);
    }
  }, 180_000);
});
