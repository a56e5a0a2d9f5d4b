import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { commitmentOfBuffer } from '../src/tracks/commitment';
import { DroppingProxy, startDroppingProxy } from './support/proxies/dropping-proxy';
import { awsCli, rclone } from './support/clients/s3-cli';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';
import { tapeWithCredential, TapeWithCredential } from './support/labs/s3-tape-lab';
import { currentVersion } from './support/clients/s3-version-view';

/**
 * Issue 19, "done when": `aws s3 sync` and `rclone sync` of a site through a proxy that drops
 * 5% of the answers (after the gateway acted on the request) publish a site identical to the
 * source. The clients retry what they did not hear back; every write must be safe to repeat.
 * FILES small files: 300 in the suite (about 100 s per client on a loaded 2-core machine);
 * SYNC_FILES=1000 runs the full size.
 */
jest.setTimeout(600_000);

const FILES = Number(process.env.SYNC_FILES ?? 300);
/** The clients' own time limit: 1,000 files take over two minutes on a loaded machine. */
const CLIENT_TIMEOUT_MS = Math.max(120_000, FILES * 400);

const fx = useS3TapeFixture({ config: { localnet: { slot_ms: 100 } }, tapes: 0 });
let proxy: DroppingProxy;
let source: string;
const site = new Map<string, Buffer>();

interface Listed {
  name: string;
  size: number;
  commitment: string;
}

async function publishedMatchesSource(tape: TapeWithCredential): Promise<void> {
  const objects: Listed[] = (await currentVersion(fx.lab.gw, tape.tape)).entries.map((e) => ({
    name: e.name,
    size: e.size,
    commitment: e.commitment.toString('hex'),
  }));
  expect(objects.map((o) => o.name).sort()).toEqual([...site.keys()].sort());
  for (const object of objects) {
    const bytes = site.get(object.name)!;
    expect({ name: object.name, size: object.size, commitment: object.commitment }).toEqual({
      name: object.name,
      size: bytes.length,
      commitment: commitmentOfBuffer(bytes).commitment.toString('hex'),
    });
  }
}

beforeAll(async () => {
  proxy = await startDroppingProxy(fx.lab.gw.s3Url, { dropRate: 0.05, seed: 19 });
  source = join(fx.work, 'site');
  for (let i = 0; i < FILES; i++) {
    const name = `${['pages', 'assets', 'docs/deep'][i % 3]}/file-${i}.${['html', 'css', 'txt'][i % 3]}`;
    const bytes = Buffer.from(`<p>file ${i}</p>\n${'x'.repeat(i % 97)}`);
    site.set(name, bytes);
    mkdirSync(dirname(join(source, name)), { recursive: true });
    writeFileSync(join(source, name), bytes);
  }
});

afterAll(async () => {
  await proxy?.close();
});

describe('syncing a site through a proxy that drops 5% of the answers', () => {
  it('aws s3 sync publishes a site identical to the source', async () => {
    const tape = await tapeWithCredential(fx.lab);
    const before = { ...proxy.stats };
    const aws = awsCli(proxy.url, tape.accessKeyId, tape.secret, CLIENT_TIMEOUT_MS);
    const result = await aws('s3', 'sync', source, `s3://${tape.label}`, '--size-only');
    const dropped = proxy.stats.dropped - before.dropped;
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(dropped).toBeGreaterThan(FILES / 50);
    await publishedMatchesSource(tape);
  });

  it('rclone sync publishes a site identical to the source', async () => {
    const tape = await tapeWithCredential(fx.lab);
    const before = { ...proxy.stats };
    const rc = rclone(proxy.url, tape.accessKeyId, tape.secret, CLIENT_TIMEOUT_MS);
    const result = await rc('sync', source, `:s3:${tape.label}`, '--retries', '5');
    const dropped = proxy.stats.dropped - before.dropped;
    // rclone logs the retries it made on stderr; only its exit code says whether it gave up.
    if (result.code !== 0)
      throw new Error(`rclone exited ${result.code}: ${result.stderr.slice(-3000)}`);
    expect(dropped).toBeGreaterThan(FILES / 50);
    await publishedMatchesSource(tape);
  });
});
