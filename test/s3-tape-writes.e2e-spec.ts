import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { commitmentOfBuffer } from '../src/tracks/commitment';
import { signedRequest } from './support/clients/s3-raw-http';
import { captureHeaders, failure } from './support/clients/s3-sdk-client';
import { s3PutHead } from './support/clients/s3-put-head';
import { encodeKeyPath } from './support/clients/s3-signing';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';
import { gatewayGet, tapeWithCredential, TapeWithCredential } from './support/labs/s3-tape-lab';
import { eventually } from './support/jest/eventually';

/**
 * Writes through the S3 endpoint of a real gateway: streamed bodies, concurrent writes of one
 * key, copies (shared tracks), batched deletes, and bodies that fail or are cut off, which must
 * leave nothing behind (no spool file, no track, no name).
 */
jest.setTimeout(180_000);

interface TapeInfo {
  objects: number;
  used: number;
  kept_bytes: number;
  version: number;
}

const fx = useS3TapeFixture({ config: { localnet: { slot_ms: 100 } } });

const info = (t: TapeWithCredential) => t.owner.json<TapeInfo>(['info', '--tape', t.tape]);
/** The keys of the tape's current version, listed through S3. */
const names = async (t: TapeWithCredential) => {
  const client = fx.client(t);
  const listed = await client.send(new ListObjectsV2Command({ Bucket: t.label }));
  return (listed.Contents ?? []).map((o) => o.Key!);
};
const get = async (client: S3Client, bucket: string, key: string, range?: string) => {
  const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: range }));
  return { res, body: Buffer.from(await res.Body!.transformToByteArray()) };
};
/** Files in the gateway's track store (not counting puts in progress). */
const storedTracks = () => countFiles(join(fx.lab.gw.dataDir, 'tracks'));
const spoolFiles = () => readdirSync(join(fx.lab.gw.dataDir, 's3-spool'));

describe('writes', () => {
  it("a streamed SDK body (STREAMING-UNSIGNED-PAYLOAD-TRAILER) becomes an object whose S3 ETag is its MD5 (the site route's stays the commitment)", async () => {
    const data = randomBytes(300_000);
    const sent = captureHeaders(fx.s3);
    await fx.s3.send(
      new PutObjectCommand({
        Bucket: fx.site.label,
        Key: 'data/feed.json',
        Body: Readable.from([data.subarray(0, 100_000), data.subarray(100_000)]),
        ContentLength: data.length,
      }),
    );
    expect(sent[0]['x-amz-content-sha256']).toBe('STREAMING-UNSIGNED-PAYLOAD-TRAILER');
    const head = await fx.s3.send(
      new HeadObjectCommand({ Bucket: fx.site.label, Key: 'data/feed.json' }),
    );
    expect(head.ETag).toBe(`"${createHash('md5').update(data).digest('hex')}"`);
    const listed = await fx.s3.send(
      new ListObjectsV2Command({ Bucket: fx.site.label, Prefix: 'data/' }),
    );
    expect(listed.Contents?.map((o) => o.ETag)).toEqual([head.ETag]);
    const served = await gatewayGet(fx.lab.gw, `/site/${fx.site.tape}/data/feed.json`);
    expect(String(served.headers.etag)).toContain(
      commitmentOfBuffer(data).commitment.toString('hex'),
    );
    expect(head.ContentType).toBe('application/json; charset=utf-8');
    expect(head.ContentLength).toBe(data.length);
    expect(Math.abs(head.LastModified!.getTime() - Date.now())).toBeLessThan(120_000);
    expect((await get(fx.s3, fx.site.label, 'data/feed.json')).body.equals(data)).toBe(true);
    const ranged = await get(fx.s3, fx.site.label, 'data/feed.json', 'bytes=70000-70009');
    expect(ranged.res.ContentRange).toBe(`bytes 70000-70009/${data.length}`);
    expect(ranged.body.equals(data.subarray(70000, 70010))).toBe(true);
  });

  it('concurrent writes of one key all succeed and leave one object, with no account per object', async () => {
    const tape = await tapeWithCredential(fx.lab);
    const client = fx.client(tape);
    const bodies = Array.from({ length: 6 }, (_, i) => randomBytes(1000 + i * 100));
    await Promise.all(
      bodies.map((Body) =>
        client.send(new PutObjectCommand({ Bucket: tape.label, Key: 'same.txt', Body })),
      ),
    );
    const { body } = await get(client, tape.label, 'same.txt');
    expect(bodies.some((b) => b.equals(body))).toBe(true);
    expect(await names(tape)).toEqual(['same.txt']);
    // Versions, not accounts: grouped writes publish at most one version each.
    const after = await info(tape);
    // One entry in the version; capacity is charged for the kept versions' bytes only.
    expect(after.objects).toBe(1);
    expect(after.used).toBe(after.kept_bytes);
    expect(after.version).toBeGreaterThanOrEqual(1);
    expect(after.version).toBeLessThanOrEqual(bodies.length);
  });

  it('CopyObject names the same bytes (no bytes copied), keeps the source content type; the copy outlives its source', async () => {
    const tape = await tapeWithCredential(fx.lab);
    const client = fx.client(tape);
    await client.send(
      new PutObjectCommand({ Bucket: tape.label, Key: 'a.html', Body: '<p>shared</p>' }),
    );
    await client.send(
      new CopyObjectCommand({
        Bucket: tape.label,
        Key: 'b.txt',
        CopySource: `${tape.label}/a.html`,
      }),
    );
    await client.send(
      new CopyObjectCommand({
        Bucket: tape.label,
        Key: 'c.html',
        CopySource: `${tape.label}/a.html`,
        MetadataDirective: 'REPLACE',
        ContentType: 'application/xhtml+xml',
      }),
    );
    expect(await info(tape)).toMatchObject({ objects: 3, version: 3 });
    expect(await names(tape)).toEqual(['a.html', 'b.txt', 'c.html']);
    // One commitment (the site routes' ETag) for the three names: the bytes are shared.
    const siteEtags = await Promise.all(
      ['a.html', 'b.txt', 'c.html'].map(
        async (name) => (await gatewayGet(fx.lab.gw, `/site/${tape.tape}/${name}`)).headers.etag,
      ),
    );
    expect(new Set(siteEtags).size).toBe(1);
    const b = await client.send(new HeadObjectCommand({ Bucket: tape.label, Key: 'b.txt' }));
    // S3 copies the source's content type (not the destination extension's) unless REPLACE.
    expect(b.ContentType).toBe('text/html; charset=utf-8');
    const c = await client.send(new HeadObjectCommand({ Bucket: tape.label, Key: 'c.html' }));
    expect(c.ContentType).toBe('application/xhtml+xml');
    await client.send(
      new DeleteObjectsCommand({ Bucket: tape.label, Delete: { Objects: [{ Key: 'a.html' }] } }),
    );
    expect((await get(client, tape.label, 'b.txt')).body.toString()).toBe('<p>shared</p>');
    const missing = await failure(
      client.send(
        new CopyObjectCommand({
          Bucket: tape.label,
          Key: 'd.txt',
          CopySource: `${tape.label}/a.html`,
        }),
      ),
    );
    expect(missing.name).toBe('NoSuchKey');
  });

  it('DeleteObjects removes a batch in one request; absent keys count as deleted', async () => {
    const keys = ['del/1.txt', 'del/2.txt', 'del/3 ü.txt'];
    for (const Key of keys) {
      await fx.s3.send(new PutObjectCommand({ Bucket: fx.site.label, Key, Body: Key }));
    }
    const result = await fx.s3.send(
      new DeleteObjectsCommand({
        Bucket: fx.site.label,
        Delete: { Objects: [...keys, 'del/never.txt'].map((Key) => ({ Key })) },
      }),
    );
    expect(result.Errors ?? []).toEqual([]);
    expect((result.Deleted ?? []).map((d) => d.Key).sort()).toEqual(
      [...keys, 'del/never.txt'].sort(),
    );
    expect((await names(fx.site)).filter((n) => n.startsWith('del/'))).toEqual([]);
  });

  it('folder markers and keys with empty segments or backslashes are ordinary keys (written, listed, read, deleted)', async () => {
    // `dir/` is the folder marker the S3 console, s3fs and Hadoop's S3A write; the version's name
    // rule refused such keys with 403 AccessDenied once S3 wrote into versions.
    const keys = ['folder/', 'folder/sub/', 'folder//twice.txt', '/lead.txt', 'win\\path.txt'];
    for (const Key of keys) {
      await fx.s3.send(
        new PutObjectCommand({ Bucket: fx.site.label, Key, Body: `body of ${Key}` }),
      );
    }
    for (const key of keys)
      expect((await get(fx.s3, fx.site.label, key)).body.toString()).toBe(`body of ${key}`);
    const rolled = await fx.s3.send(
      new ListObjectsV2Command({ Bucket: fx.site.label, Prefix: 'folder/', Delimiter: '/' }),
    );
    expect((rolled.Contents ?? []).map((o) => o.Key)).toEqual(['folder/']);
    expect((rolled.CommonPrefixes ?? []).map((p) => p.Prefix)).toEqual(['folder//', 'folder/sub/']);
    await fx.s3.send(
      new DeleteObjectsCommand({
        Bucket: fx.site.label,
        Delete: { Objects: keys.map((Key) => ({ Key })) },
      }),
    );
    const left = await names(fx.site);
    expect(left.filter((n) => keys.includes(n))).toEqual([]);
  });

  it('a body that fails its signed SHA-256 is refused and leaves nothing behind', async () => {
    const tracksBefore = storedTracks();
    const res = await signedRequest(Number(new URL(fx.lab.gw.s3Url).port), {
      method: 'PUT',
      path: encodeKeyPath(fx.site.label, 'lying.txt'),
      headers: {
        'x-amz-content-sha256': createHash('sha256').update('other bytes').digest('hex'),
      },
      body: Buffer.from('these bytes'),
      accessKeyId: fx.site.accessKeyId,
      secret: fx.site.secret,
    });
    expect(res.status).toBe(400);
    expect(res.body).toContain('<Code>XAmzContentSHA256Mismatch</Code>');
    expect(storedTracks()).toBe(tracksBefore);
    expect(spoolFiles()).toEqual([]);
    expect(await names(fx.site)).not.toContain('lying.txt');
  });

  it('a connection dropped mid-body leaves no spool file, no track and no name', async () => {
    const tracksBefore = storedTracks();
    const total = 12 * 1024 * 1024;
    const socket = await s3PutHead(fx.lab.gw.s3Url, fx.site, 'dropped.bin', total);
    socket.write(randomBytes(9 * 1024 * 1024));
    // The body is being spooled (more than one segment already) when the client vanishes.
    await eventually('two bodies spooled', () => spoolFiles().length >= 2);
    socket.destroy();
    await eventually('the spool emptied', () => spoolFiles().length === 0);
    expect(storedTracks()).toBe(tracksBefore);
    expect(await names(fx.site)).not.toContain('dropped.bin');
    // The gateway carries on.
    await fx.s3.send(new PutObjectCommand({ Bucket: fx.site.label, Key: 'after.txt', Body: 'ok' }));
    expect((await gatewayGet(fx.lab.gw, `/site/${fx.site.tape}/after.txt`)).body.toString()).toBe(
      'ok',
    );
  });
});

function countFiles(dir: string): number {
  let count = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '.tmp') continue;
    count += entry.isDirectory() ? countFiles(join(dir, entry.name)) : 1;
  }
  return count;
}
