import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { allowPublicRead, CephRgw, startCephRgw } from './support/processes/ceph';
import { CliDesk } from './support/labs/cli-desk';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { RecordingProxy, startRecordingProxy } from './support/proxies/recording-proxy';
import { StoreCredentials, trackStoreEnv } from './support/labs/s3-store-lab';
import { siteGet } from './support/clients/site-http';

/**
 * docs/operator.md, "Scaling out", readers with read-only access: a writer uploads into its
 * bucket; one reader holds the read-only subuser's keys (tape:reader: GET, HEAD, List), another
 * no credentials at all (the bucket has a public-read policy). Both serve every file of the
 * network, and never send the store anything but GET and HEAD (a recording proxy sits between
 * each reader and RGW), although each is configured with create_bucket and the GC on.
 */
const BUCKET = 'tape-ro';
const BIG = 12 * 1024 * 1024; // a manifest and two segment tracks

describe('readers with read-only access to the track store (Ceph RGW)', () => {
  let ceph: CephRgw;
  let writer: GatewayProcess;
  const readers: Partial<Record<'read-only' | 'anonymous', GatewayProcess>> = {};
  const proxies: Partial<Record<'read-only' | 'anonymous', RecordingProxy>> = {};
  let owner: S3Client;
  const clients: S3Client[] = [];
  const desk = new CliDesk();
  let tape: string;
  const files: Record<string, Buffer> = {
    'index.html': Buffer.from('<!doctype html><title>ro</title><p>read-only readers</p>'),
    'app.js': Buffer.from('console.log("served without write access")'),
    'data/rows.json': Buffer.from(
      JSON.stringify({ rows: Array.from({ length: 3000 }, (_, i) => i) }),
    ),
    'media/big.bin': randomBytes(BIG),
  };
  const client = (credentials: { accessKeyId: string; secretAccessKey: string }) => {
    const c = new S3Client({
      endpoint: ceph.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials,
    });
    clients.push(c);
    return c;
  };
  const startReader = async (credentials: 'read-only' | 'anonymous') => {
    const proxy = await startRecordingProxy(ceph.endpoint);
    proxies[credentials] = proxy;
    const env = trackStoreEnv(ceph, BUCKET, credentials satisfies StoreCredentials);
    readers[credentials] = await startGateway({
      rpcUrl: writer.rpcUrl,
      env: {
        ...env,
        TAPE__STORAGE__TRACKS__S3__ENDPOINT: proxy.url,
        // Both would write if a reader ever did: the bucket exists, the GC would run every 100 ms.
        TAPE__STORAGE__TRACKS__S3__CREATE_BUCKET: 'true',
        TAPE__STORAGE__GC__INTERVAL_MS: '100',
      },
    });
  };

  beforeAll(async () => {
    ceph = await startCephRgw();
    writer = await startGateway({
      env: { ...trackStoreEnv(ceph, BUCKET), TAPE__STORAGE__TRACKS__S3__CREATE_BUCKET: 'true' },
    });
    owner = client({ accessKeyId: ceph.accessKey, secretAccessKey: ceph.secretKey });
    // Public read for the anonymous reader: objects (GET, HEAD) and the bucket (its probe).
    await allowPublicRead(owner, BUCKET);
    const publisher = await desk.withTape(writer, '64m');
    tape = publisher.tape;
    await publisher.u.ok(['deploy', join(desk.site(files), 'index.html')]);
    await startReader('read-only');
    await startReader('anonymous');
  });
  afterAll(async () => {
    for (const r of Object.values(readers)) await r.stop();
    for (const p of Object.values(proxies)) await p.close();
    await writer?.stop();
    clients.forEach((c) => c.destroy());
    await ceph?.stop();
    desk.cleanup();
  });

  it('the credentials are what they say: the read-only key and no key cannot write', async () => {
    const readOnly = client({
      accessKeyId: ceph.readAccessKey,
      secretAccessKey: ceph.readSecretKey,
    });
    const put = (c: S3Client) =>
      c.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'tracks/probe', Body: 'x' })).then(
        () => 200,
        (err: { $metadata?: { httpStatusCode?: number } }) => err.$metadata?.httpStatusCode,
      );
    expect(await put(readOnly)).toBe(403);
    const anonymous = await fetch(`${ceph.endpoint}/${BUCKET}/tracks/probe`, {
      method: 'PUT',
      body: 'x',
    });
    expect(anonymous.status).toBe(403);
  });

  it.each(['read-only', 'anonymous'] as const)(
    'a reader with %s access serves every file of the network, ranges included',
    async (credentials) => {
      const reader = readers[credentials]!;
      for (const name of Object.keys(files)) {
        const res = await siteGet(reader.url, `/site/${tape}/${name}`);
        expect({ name, status: res.status }).toEqual({ name, status: 200 });
        expect(res.body.equals(files[name])).toBe(true);
      }
      const ranged = await siteGet(reader.url, `/site/${tape}/media/big.bin`, {
        headers: { range: 'bytes=8000000-8400000' },
      });
      expect(ranged.status).toBe(206);
      expect(ranged.body.equals(files['media/big.bin'].subarray(8_000_000, 8_400_001))).toBe(true);
      const health = await fetch(`${reader.url}/healthz`);
      expect(health.status).toBe(200);
      const body = (await health.json()) as Record<string, unknown>;
      expect(body.role).toBe('reader');
    },
  );

  it('readers never write to the store and never run the garbage collector', async () => {
    await new Promise((r) => setTimeout(r, 500)); // five GC intervals
    for (const credentials of ['read-only', 'anonymous'] as const) {
      const reader = readers[credentials]!;
      const health = (await (await fetch(`${reader.url}/healthz`)).json()) as {
        track_gc: { enabled: boolean; disabledReason?: string; passes: number };
      };
      expect(health.track_gc).toMatchObject({
        enabled: false,
        disabledReason: 'reader',
        passes: 0,
      });
      const sent = proxies[credentials]!.requests;
      expect(sent.length).toBeGreaterThan(0);
      const methods = new Set(sent.map((line) => line.split(' ')[0]));
      expect({ credentials, methods: [...methods].sort() }).toEqual({
        credentials,
        methods: expect.arrayContaining(['GET']),
      });
      expect([...methods].filter((m) => m !== 'GET' && m !== 'HEAD')).toEqual([]);
    }
  });
});
