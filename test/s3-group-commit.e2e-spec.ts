import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Connection, PublicKey } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { awsCli } from './support/clients/s3-cli';
import { failure } from './support/clients/s3-sdk-client';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';
import { tapeWithCredential } from './support/labs/s3-tape-lab';
import { currentVersion } from './support/clients/s3-version-view';

/**
 * S3 writes go into versions with group commit (docs/s3.md, "Writes: group commit"): writes
 * arriving together share one Publish, each answered only once its version is confirmed; no
 * account is created per object, so the gateway's key pays fees only.
 */
jest.setTimeout(300_000);

const fx = useS3TapeFixture({ config: { localnet: { slot_ms: 100 } }, tapes: 0 });

const read = async (s3: S3Client, bucket: string, key: string) => {
  const res = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await res.Body!.transformToByteArray());
};
const absent = async (s3: S3Client, bucket: string, key: string) =>
  (await failure(s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))))?.name;

describe('group commit', () => {
  it('concurrent PutObjects share versions; each is answered once its version is on chain', async () => {
    const t = await tapeWithCredential(fx.lab);
    const s3 = fx.client(t);
    const bodies = Array.from({ length: 40 }, (_, i) => randomBytes(200 + i * 37));
    const seenAtAnswer: boolean[] = [];
    await Promise.all(
      bodies.map(async (Body, i) => {
        const key = `burst/${String(i).padStart(2, '0')}.bin`;
        await s3.send(new PutObjectCommand({ Bucket: t.label, Key: key, Body }));
        // Confirmed before answered: the chain's current version already holds the object.
        const now = await currentVersion(fx.lab.gw, t.tape);
        const entry = now.entries.find((e) => e.name === key);
        seenAtAnswer[i] = entry?.size === Body.length;
      }),
    );
    expect(seenAtAnswer).toEqual(bodies.map(() => true));
    const { record, entries } = await currentVersion(fx.lab.gw, t.tape);
    expect(entries).toHaveLength(bodies.length);
    // Grouped: fewer versions than writes (one Publish in flight, the next group forms meanwhile).
    expect(record.version).toBeGreaterThanOrEqual(1);
    expect(record.version).toBeLessThan(bodies.length);
    for (const [i, body] of bodies.entries()) {
      const key = `burst/${String(i).padStart(2, '0')}.bin`;
      expect((await read(s3, t.label, key)).equals(body)).toBe(true);
    }
    console.log(`40 concurrent PutObjects published ${record.version} versions`);
  });

  it('PUT k, DELETE k, PUT k at once: the object is there at the end, for every kind of write', async () => {
    const t = await tapeWithCredential(fx.lab);
    const s3 = fx.client(t);
    const bytes = Buffer.from('the same bytes every time');
    const put = () => s3.send(new PutObjectCommand({ Bucket: t.label, Key: 'k.txt', Body: bytes }));
    const del = () => s3.send(new DeleteObjectCommand({ Bucket: t.label, Key: 'k.txt' }));
    const dels = () =>
      s3.send(
        new DeleteObjectsCommand({ Bucket: t.label, Delete: { Objects: [{ Key: 'k.txt' }] } }),
      );
    const copy = () =>
      s3.send(
        new CopyObjectCommand({ Bucket: t.label, Key: 'k.txt', CopySource: `${t.label}/src.txt` }),
      );
    const multipart = async () => {
      const { UploadId } = await s3.send(
        new CreateMultipartUploadCommand({ Bucket: t.label, Key: 'k.txt' }),
      );
      const part = await s3.send(
        new UploadPartCommand({
          Bucket: t.label,
          Key: 'k.txt',
          UploadId,
          PartNumber: 1,
          Body: bytes,
        }),
      );
      await s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: t.label,
          Key: 'k.txt',
          UploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
        }),
      );
    };
    await s3.send(new PutObjectCommand({ Bucket: t.label, Key: 'src.txt', Body: bytes }));
    for (const [write, remove] of [
      [put, del],
      [copy, dels],
      [multipart, del],
      [put, dels],
    ] as const) {
      await write();
      await remove();
      expect(await absent(s3, t.label, 'k.txt')).toBe('NoSuchKey');
      await write();
      expect((await read(s3, t.label, 'k.txt')).equals(bytes)).toBe(true);
    }
    // Sent together, not one after the other: one group applies them in arrival order.
    await Promise.all([put(), copy()]);
    expect((await read(s3, t.label, 'k.txt')).equals(bytes)).toBe(true);
  });

  it('aws s3 sync of 300 files locks no rent: the gateway key pays fees only', async () => {
    const t = await tapeWithCredential(fx.lab);
    const dir = join(fx.work, 'sync');
    for (let i = 0; i < 300; i++) {
      const path = join(dir, `d${i % 10}`, `file-${i}.txt`);
      mkdirSync(join(dir, `d${i % 10}`), { recursive: true });
      writeFileSync(path, `file ${i} ${'x'.repeat(i * 7)}`);
    }
    const connection = new Connection(fx.lab.gw.rpcUrl, 'confirmed');
    const key = new PublicKey(fx.lab.gatewayKey);
    const before = await connection.getBalance(key);
    const aws = awsCli(fx.lab.gw.s3Url, t.accessKeyId, t.secret);
    const started = Date.now();
    const result = await aws('s3', 'sync', dir, `s3://${t.label}`, '--size-only');
    const took = Date.now() - started;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const after = await connection.getBalance(key);
    const { record, entries } = await currentVersion(fx.lab.gw, t.tape);
    expect(entries).toHaveLength(300);
    const spent = before - after;
    console.log(
      `aws s3 sync of 300 files: ${took} ms, ${record.version} versions, gateway key ` +
        `${before} -> ${after} lamports (${spent} spent, ${spent / record.version} per version)`,
    );
    // Fees only: 5,000 lamports per signature (two per Publish) plus priority fees, no rent
    // (one object account used to lock about 3,700,000).
    expect(spent).toBeGreaterThan(0);
    expect(spent / record.version).toBeLessThan(100_000);
    expect(spent).toBeLessThan(10_000_000);
  });
});
