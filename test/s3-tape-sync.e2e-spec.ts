import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { splitFileIntoTracks } from '../src/tracks/track-layout';
import { awsCli, rclone } from './support/clients/s3-cli';
import { ACROSS_PROCESSES, eventually } from './support/jest/eventually';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';
import { gatewayGet, sitePath, tapeWithCredential } from './support/labs/s3-tape-lab';
import { currentVersion } from './support/clients/s3-version-view';

/**
 * Publishing a site through the S3 endpoint of a real gateway process, with the real clients:
 * aws-cli 2 (`/usr/bin/aws`) and rclone. Objects land on the tape as the same named objects
 * `tape deploy` writes, and the gateway serves them by path and by hostname.
 */
jest.setTimeout(180_000);

const SITE: Record<string, Buffer> = {
  'index.html': Buffer.from('<!doctype html><title>home</title><h1>v1</h1>'),
  '404.html': Buffer.from('<!doctype html><h1>not here</h1>'),
  'docs/a b.html': Buffer.from('<p>space</p>'),
  'c++/x+y.txt': Buffer.from('plus signs'),
  'ünï/çödé 日本.txt': Buffer.from('non-ascii name'),
  'assets/app.css': Buffer.from('body{color:red}'),
  'assets/app.js': Buffer.from('console.log(1)'),
  'big.bin': randomBytes(20 * 1024 * 1024),
};

interface Listed {
  name: string;
  size: number;
  content_type: string;
  commitment: string;
  streamed: boolean;
}

const fx = useS3TapeFixture({ config: { localnet: { slot_ms: 100 } } });
let dist: string;
let aws: ReturnType<typeof awsCli>;

const lines = (out: string) => out.split(/[\r\n]+/).filter(Boolean);
const uploads = (out: string) => lines(out).filter((l) => l.startsWith('upload:'));
const sync = (...extra: string[]) =>
  aws('s3', 'sync', dist, `s3://${fx.site.label}`, '--size-only', '--delete', ...extra);
const served = (name: string) => gatewayGet(fx.lab.gw, `/site/${fx.site.tape}/${sitePath(name)}`);
/** The objects of the tape's current version (docs/versions.md), as `tape object ls` shows them. */
const listedOf = async (tape: string): Promise<Map<string, Listed>> =>
  new Map(
    (await currentVersion(fx.lab.gw, tape)).entries.map((e) => [
      e.name,
      {
        name: e.name,
        size: e.size,
        content_type: e.contentType,
        commitment: e.commitment.toString('hex'),
        streamed: e.location.kind === 'stream',
      },
    ]),
  );
const listed = () => listedOf(fx.site.tape);

function writeTree(root: string, files: Record<string, Buffer>): void {
  for (const [name, data] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), data);
  }
}

beforeAll(() => {
  dist = join(fx.work, 'dist');
  writeTree(dist, SITE);
  aws = awsCli(fx.lab.gw.s3Url, fx.site.accessKeyId, fx.site.secret);
});

describe('aws s3 sync publishes a site on a tape', () => {
  it('uploads every file (the 20 MB one as a multipart upload) as the objects tape deploy writes', async () => {
    const result = await sync();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(uploads(result.stdout)).toHaveLength(Object.keys(SITE).length);

    const objects = await listed();
    expect([...objects.keys()].sort()).toEqual(Object.keys(SITE).sort());
    expect(objects.get('index.html')!.content_type).toBe('text/html; charset=utf-8');
    expect(objects.get('assets/app.js')!.content_type).toBe('text/javascript; charset=utf-8');
    expect(objects.get('assets/app.css')!.content_type).toBe('text/css; charset=utf-8');
    expect(objects.get('big.bin')!.streamed).toBe(true);
    // The commitment tape deploy would compute for the same file: S3 and the CLI agree.
    for (const name of Object.keys(SITE)) {
      const layout = await splitFileIntoTracks(join(dist, name), 8 * 1024 * 1024);
      const expected =
        layout.kind === 'blob' ? layout.digest.commitment : layout.manifestDigest.commitment;
      expect(objects.get(name)!.commitment).toBe(expected.toString('hex'));
      expect(objects.get(name)!.size).toBe(SITE[name].length);
    }
  });

  it('the gateway serves the published site by path and on <label>.localhost', async () => {
    for (const name of ['docs/a b.html', 'c++/x+y.txt', 'ünï/çödé 日本.txt', 'assets/app.css']) {
      const res = await served(name);
      expect(res.status).toBe(200);
      expect(res.body.equals(SITE[name])).toBe(true);
    }
    const big = await served('big.bin');
    expect(sha256(big.body)).toBe(sha256(SITE['big.bin']));
    const home = await gatewayGet(fx.lab.gw, '/', `${fx.site.label}.localhost:8080`);
    expect(home.status).toBe(200);
    expect(home.body.toString()).toContain('<h1>v1</h1>');
  });

  it('a second sync uploads nothing', async () => {
    const result = await sync();
    expect(result.code).toBe(0);
    expect(uploads(result.stdout)).toEqual([]);
  });

  it('one changed file is the only upload, and the site shows it within a minute', async () => {
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>home</title><h1>version 2</h1>');
    const result = await sync();
    expect(result.code).toBe(0);
    expect(uploads(result.stdout)).toEqual([expect.stringContaining('index.html')]);
    const waited = await eventually(
      'the new index.html on the site',
      async () => (await served('')).body.toString().includes('version 2'),
      ACROSS_PROCESSES,
    );
    expect(waited).toBeLessThan(60_000);
  });

  it('--delete removes a file from the tape; the site answers 404 for it', async () => {
    unlinkSync(join(dist, 'c++', 'x+y.txt'));
    const result = await sync();
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toContain(`delete: s3://${fx.site.label}/c++/x+y.txt`);
    expect((await listed()).has('c++/x+y.txt')).toBe(false);
    await eventually(
      'the deleted file gone from the site',
      async () => {
        const res = await served('c++/x+y.txt');
        return res.status === 404 && res.body.toString().includes('not here');
      },
      ACROSS_PROCESSES,
    );
  });

  it('aws s3 ls lists what the tape holds', async () => {
    const result = await aws('s3', 'ls', '--recursive', `s3://${fx.site.label}`);
    expect(result.code).toBe(0);
    const keys = lines(result.stdout).map((l) => /^\S+ \S+\s+(\d+) (.*)$/.exec(l)!.slice(1));
    expect(keys).toContainEqual([String(SITE['big.bin'].length), 'big.bin']);
    expect(keys).toContainEqual([String(SITE['docs/a b.html'].length), 'docs/a b.html']);
    expect(keys.map((k) => k[1])).not.toContain('c++/x+y.txt');
  });

  it('aws s3 cp uploads and downloads names with spaces, + and non-ASCII characters', async () => {
    const up = join(fx.work, 'up file.txt');
    writeFileSync(up, 'copied up');
    const target = `s3://${fx.site.label}/cp dir/ä+b c.txt`;
    expect((await aws('s3', 'cp', up, target)).code).toBe(0);
    const down = join(fx.work, 'down.txt');
    expect((await aws('s3', 'cp', target, down)).code).toBe(0);
    expect(readFileSync(down, 'utf8')).toBe('copied up');
    const big = join(fx.work, 'big.down');
    expect((await aws('s3', 'cp', `s3://${fx.site.label}/big.bin`, big)).code).toBe(0);
    expect(sha256(readFileSync(big))).toBe(sha256(SITE['big.bin']));
    expect((await served('cp dir/ä+b c.txt')).body.toString()).toBe('copied up');
  });

  it('aws s3 presign gives a URL a plain GET can use', async () => {
    const presigned = await aws('s3', 'presign', `s3://${fx.site.label}/docs/a b.html`);
    expect(presigned.code).toBe(0);
    const res = await fetch(presigned.stdout.trim());
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('<p>space</p>');
    const tampered = presigned.stdout.trim().replace('a%20b.html', 'index.html');
    expect((await fetch(tampered)).status).toBe(403);
  });

  it('hidden files and .well-known/ are refused with a clear message; the rest still syncs', async () => {
    writeTree(dist, {
      '.well-known/security.txt': Buffer.from('Contact: x'),
      'assets/.env': Buffer.from('SECRET=1'),
      'later.html': Buffer.from('<p>later</p>'),
    });
    const result = await sync();
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/\.well-known\/security\.txt.*InvalidArgument.*never published/);
    expect(result.stderr).toMatch(/assets\/\.env.*InvalidArgument.*never published/);
    const objects = await listed();
    expect(objects.has('later.html')).toBe(true);
    expect([...objects.keys()].filter((k) => k.split('/').some((s) => s.startsWith('.')))).toEqual(
      [],
    );
    rmSync(join(dist, '.well-known'), { recursive: true });
    unlinkSync(join(dist, 'assets', '.env'));
  });
});

describe('rclone publishes to a tape too', () => {
  it('syncs a tree, then finds nothing to transfer; the site serves it', async () => {
    const other = await tapeWithCredential(fx.lab);
    const tree = join(fx.work, 'rclone');
    writeTree(tree, {
      'index.html': Buffer.from('rclone home'),
      'sub dir/x+y ü.txt': Buffer.from('rclone plus'),
      'sub dir/deep/😀.txt': Buffer.from('rclone emoji'),
    });
    const r = rclone(fx.lab.gw.s3Url, other.accessKeyId, other.secret);
    const first = await r('sync', tree, `:s3:${other.label}`, '--size-only', '-v');
    expect(first.code).toBe(0);
    const second = await r('sync', tree, `:s3:${other.label}`, '--size-only', '-v');
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/There was nothing to transfer|Transferred:\s+0 \/ 0/);
    const res = await gatewayGet(fx.lab.gw, `/site/${other.tape}/${sitePath('sub dir/x+y ü.txt')}`);
    expect(res.body.toString()).toBe('rclone plus');
    const names = [...(await listedOf(other.tape)).keys()];
    expect(names.sort()).toEqual(['index.html', 'sub dir/deep/😀.txt', 'sub dir/x+y ü.txt']);
  });
});

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
