import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { awsCli, rclone } from './support/clients/s3-cli';
import { startS3TestApp, S3TestApp } from './support/apps/s3-test-app';

/**
 * The real clients against the real S3 listener (over the in-memory backend double):
 * aws-cli 2 `s3 sync/ls/cp/presign` and rclone, with keys that break naive implementations.
 */
const BUCKET = 'mfrggzdfmztwq2lknnwg23tpobyxe43uov3ho6dzpiyteobqgeztema';
const TAPE = 'TapeAddress1111111111111111111111111111111';
const KEY_ID = 'AKIDSITEOWNER0000001';
const SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0';

const SITE: Record<string, Buffer> = {
  'index.html': Buffer.from('<!doctype html><title>home</title>'),
  'docs/a b.html': Buffer.from('<p>space</p>'),
  'c++/x+y.txt': Buffer.from('plus signs'),
  'ünï/çödé 日本.txt': Buffer.from('non-ascii name'),
  'ünï/😀.txt': Buffer.from('astral plane'),
  'ｚ.txt': Buffer.from('fullwidth z sorts before the emoji in UTF-8'),
  'assets/app.css': Buffer.from('body{color:red}'),
  'big.bin': randomBytes(20 * 1024 * 1024),
};

jest.setTimeout(120000);

let app: S3TestApp;
let site: string;
let work: string;
let aws: ReturnType<typeof awsCli>;

function writeTree(root: string, files: Record<string, Buffer>): void {
  for (const [name, data] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), data);
  }
}

function stored(key: string): Buffer | undefined {
  return app.backend.tape(BUCKET).objects.get(key)?.data;
}

/** aws-cli separates progress and result lines with \r as well as \n. */
const lines = (out: string) => out.split(/[\r\n]+/).filter(Boolean);
const uploads = (out: string) => lines(out).filter((l) => l.startsWith('upload:'));

beforeAll(async () => {
  app = await startS3TestApp();
  app.backend.addTape(BUCKET, TAPE);
  app.credentials.issue(KEY_ID, SECRET, TAPE);
  work = mkdtempSync(join(tmpdir(), 'tape-s3-e2e-'));
  site = join(work, 'site');
  writeTree(site, SITE);
  aws = awsCli(app.url, KEY_ID, SECRET);
});

afterAll(async () => {
  await app?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('aws s3 (aws-cli 2)', () => {
  it('syncs a site with --size-only --delete, the 20 MB file as a multipart upload', async () => {
    const result = await aws('s3', 'sync', site, `s3://${BUCKET}`, '--size-only', '--delete');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(uploads(result.stdout)).toHaveLength(Object.keys(SITE).length);
    for (const [name, data] of Object.entries(SITE)) expect(stored(name)?.equals(data)).toBe(true);
    const parts = app.backend.calls.filter((c) => c.startsWith('uploadPart big.bin'));
    expect(parts.length).toBe(3);
    expect(app.backend.calls).toContain('completeMultipartUpload big.bin 1,2,3');
    expect(app.backend.tape(BUCKET).objects.get('index.html')?.head.contentType).toBe('text/html');
  });

  it('uploads nothing when syncing the same tree again', async () => {
    const before = app.backend.calls.length;
    const result = await aws('s3', 'sync', site, `s3://${BUCKET}`, '--size-only', '--delete');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('');
    expect(app.backend.calls.slice(before).filter((c) => !c.startsWith('listObjects'))).toEqual([]);
  });

  it('uploads one changed file and deletes a removed one', async () => {
    writeFileSync(join(site, 'docs/a b.html'), '<p>space, now longer</p>');
    unlinkSync(join(site, 'c++/x+y.txt'));
    const result = await aws('s3', 'sync', site, `s3://${BUCKET}`, '--size-only', '--delete');
    expect(result.code).toBe(0);
    expect(uploads(result.stdout)).toHaveLength(1);
    expect(lines(result.stdout).filter((l) => l.startsWith('delete:'))).toHaveLength(1);
    expect(stored('docs/a b.html')?.toString()).toBe('<p>space, now longer</p>');
    expect(stored('c++/x+y.txt')).toBeUndefined();
  });

  it('lists buckets, a directory level and everything recursively', async () => {
    const buckets = await aws('s3', 'ls');
    expect(buckets.code).toBe(0);
    expect(buckets.stdout).toContain(BUCKET);
    const top = await aws('s3', 'ls', `s3://${BUCKET}/`);
    expect(top.stdout).toMatch(/PRE docs\//);
    expect(top.stdout).toMatch(/PRE ünï\//);
    expect(top.stdout).toMatch(/\s20971520 big\.bin/);
    const all = await aws('s3', 'ls', '--recursive', `s3://${BUCKET}`);
    expect(all.stdout).toContain('ünï/çödé 日本.txt');
    expect(all.stdout).toContain('docs/a b.html');
  });

  it('copies files down and up with cp, including a ranged multipart download', async () => {
    const out = join(work, 'down');
    const small = await aws('s3', 'cp', `s3://${BUCKET}/ünï/çödé 日本.txt`, join(out, 'n.txt'));
    expect(small.code).toBe(0);
    expect(readFileSync(join(out, 'n.txt')).equals(SITE['ünï/çödé 日本.txt'])).toBe(true);
    const big = await aws('s3', 'cp', `s3://${BUCKET}/big.bin`, join(out, 'big.bin'));
    expect(big.code).toBe(0);
    expect(readFileSync(join(out, 'big.bin')).equals(SITE['big.bin'])).toBe(true);
    expect(app.backend.calls.some((c) => /^getObject big\.bin \d+-\d+$/.test(c))).toBe(true);

    writeFileSync(join(out, 'up.txt'), 'uploaded with cp');
    const up = await aws('s3', 'cp', join(out, 'up.txt'), `s3://${BUCKET}/new dir/a+b ü.txt`);
    expect(up.code).toBe(0);
    expect(stored('new dir/a+b ü.txt')?.toString()).toBe('uploaded with cp');
  });

  it('presigns a GET that a plain fetch can use, until it expires', async () => {
    const presigned = await aws(
      's3',
      'presign',
      `s3://${BUCKET}/docs/a b.html`,
      '--expires-in',
      '2',
    );
    expect(presigned.code).toBe(0);
    const url = presigned.stdout.trim();
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('<p>space, now longer</p>');
    // Opened in a browser, tenant HTML on the S3 listener's shared origin runs sandboxed (no
    // script, no storage of that origin), as on /object (test/browser-isolation.e2e-spec.ts).
    expect(ok.headers.get('content-type')).toMatch(/^text\/html/);
    expect(ok.headers.get('content-security-policy')).toBe('sandbox');
    expect(ok.headers.get('x-content-type-options')).toBe('nosniff');
    const tampered = await fetch(url.replace('X-Amz-Expires=2', 'X-Amz-Expires=3'));
    expect(tampered.status).toBe(403);
    expect(await tampered.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    await new Promise((r) => setTimeout(r, 3000));
    const expired = await fetch(url);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toMatch(/<Code>AccessDenied<\/Code><Message>request has expired/);
  });

  it('fails cleanly, with the S3 error, for a secret that does not match', async () => {
    const wrong = awsCli(app.url, KEY_ID, 'wrong-secret');
    const result = await wrong('s3', 'ls', `s3://${BUCKET}/`);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('SignatureDoesNotMatch');
  });
  it('shows the capacity fix for a full tape, without retrying the upload', async () => {
    app.backend.tape(BUCKET).capacity = 1;
    const before = app.meter.seen.length;
    try {
      const result = await aws('s3', 'cp', join(site, 'index.html'), `s3://${BUCKET}/full.html`);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('(InsufficientStorage)');
      expect(result.stderr).toContain('insufficient capacity');
      expect(result.stderr).toContain('(fix: tape resize --add <size>)');
      expect(app.meter.seen.length - before).toBe(1);
    } finally {
      app.backend.tape(BUCKET).capacity = undefined;
    }
  });
});

describe('rclone (s3 backend, path style)', () => {
  it('syncs a tree, then finds nothing to transfer on the second run', async () => {
    const tree = join(work, 'rclone');
    writeTree(tree, {
      'index.html': Buffer.from('rclone home'),
      'sub dir/x+y ü.txt': Buffer.from('rclone plus'),
      'sub dir/deep/😀.txt': Buffer.from('rclone emoji'),
    });
    const r = rclone(app.url, KEY_ID, SECRET);
    const first = await r('sync', tree, `:s3:${BUCKET}/rc`, '--size-only', '-v');
    expect(first.code).toBe(0);
    expect(stored('rc/sub dir/x+y ü.txt')?.toString()).toBe('rclone plus');
    expect(stored('rc/sub dir/deep/😀.txt')?.toString()).toBe('rclone emoji');
    const second = await r('sync', tree, `:s3:${BUCKET}/rc`, '--size-only', '-v');
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/There was nothing to transfer|Transferred:\s+0 \/ 0/);
    const listing = await r('lsf', '-R', `:s3:${BUCKET}/rc`);
    expect(listing.stdout.split('\n')).toEqual(
      expect.arrayContaining(['index.html', 'sub dir/x+y ü.txt', 'sub dir/deep/😀.txt']),
    );
  });
});
