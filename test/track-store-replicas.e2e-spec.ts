import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CephRgw, startCephRgw } from './support/processes/ceph';
import { CliUser, keyValues } from './support/clients/cli';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { RedisServer, startRedis } from './support/processes/metering-redis';
import { RoundRobin, startRoundRobin } from './support/processes/nginx-round-robin';
import { awsCli, rclone } from './support/clients/s3-cli';
import { failure, sdkClient } from './support/clients/s3-sdk-client';
import { ACROSS_PROCESSES, eventually } from './support/jest/eventually';
import { sitePath } from './support/labs/s3-tape-lab';
import { siteGet } from './support/clients/site-http';

/**
 * The topology of docs/operator.md, "Scaling out", with two writers: one Ceph RGW bucket holds
 * every track and every multipart part; one redis-server holds the state the replicas share
 * (S3 credentials, multipart uploads and the spool budget, the track references, the
 * collector's lease); writers A (embedding the local network) and B (A's RPC, the same
 * storage-authority key file) take S3 writes through nginx round-robin; a reader serves.
 */
jest.setTimeout(300_000);

const MiB = 1024 * 1024;
const AWS_SITE: Record<string, Buffer> = {
  'index.html': Buffer.from('<!doctype html><title>replicas</title><p>synced through two writers'),
  'assets/app.js': Buffer.from('console.log("replicas")'),
  // Past aws-cli's 8 MiB multipart threshold: 8 MiB parts spread over both writers.
  'media/big.bin': randomBytes(20 * MiB + 12345),
  'media/mid.bin': randomBytes(9 * MiB),
};
const RCLONE_SITE: Record<string, Buffer> = {
  'index.html': Buffer.from('rclone through the round-robin'),
  // Past the 5 MiB cutoff given to rclone below: 5 MiB parts.
  'data/large.bin': randomBytes(13 * MiB + 7),
};

function writeTree(root: string, files: Record<string, Buffer>): void {
  for (const [name, data] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), data);
  }
}

interface GcStats {
  passes: number;
  skippedPasses: number;
  recentPasses: { startedAt: number; endedAt: number }[];
}

describe('replicas share state: two writers, Redis and Ceph RGW behind nginx', () => {
  let ceph: CephRgw;
  let redis: RedisServer;
  let writerA: GatewayProcess;
  let writerB: GatewayProcess;
  let reader: GatewayProcess;
  let lb: RoundRobin;
  let work: string;
  let operatorA: CliUser;
  let operatorB: CliUser;
  const users: CliUser[] = [];
  let gatewayKey: string;

  /** What every replica and the operator commands share: store, Redis, operator key. */
  const sharedEnv = (): Record<string, string> => ({
    TAPE__STORAGE__TRACKS__STORE: 's3',
    TAPE__STORAGE__TRACKS__S3__ENDPOINT: ceph.endpoint,
    TAPE__STORAGE__TRACKS__S3__BUCKET: 'tape-replicas',
    TAPE__STORAGE__TRACKS__S3__ACCESS_KEY_ID: ceph.accessKey,
    TAPE__STORAGE__TRACKS__S3__SECRET_ACCESS_KEY: ceph.secretKey,
    TAPE__STORAGE__SHARED__REDIS_URL: redis.url,
    TAPE__GATEWAY__S3__CREDENTIAL_KEY_FILE: join(work, 'operator', 's3-credentials.key'),
    TAPE__GATEWAY__SITE__NAME_CACHE_SECS: '1',
  });
  const writerEnv = (): Record<string, string> => ({
    ...sharedEnv(),
    // Frequent passes, so that both writers try to collect while the syncs run.
    TAPE__STORAGE__GC__INTERVAL_MS: '150',
    TAPE__STORAGE__SHARED__GC_LEASE_MS: '2000',
  });

  /** A funded owner with a tape delegated to the writers' key. */
  const newTape = async (capacity: string) => {
    const owner = new CliUser(writerA);
    users.push(owner);
    await owner.fundedWallet();
    const created = keyValues(
      await owner.ok(['create', '--capacity', capacity, '--duration', '1d']),
    );
    await owner.ok(['delegate', gatewayKey]);
    return { owner, tape: created['tape address'], label: created.label };
  };
  const issue = async (operator: CliUser, tape: string) => {
    const issued = keyValues(
      await operator.ok(['gateway', 'credentials', 'issue', '--tape', tape]),
    );
    return { id: issued['access key id'], secret: issued['secret access key'] };
  };
  const gcStats = async (gw: GatewayProcess): Promise<GcStats> =>
    ((await (await fetch(`${gw.url}/healthz`)).json()) as { track_gc: GcStats }).track_gc;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'tape-replicas-'));
    mkdirSync(join(work, 'operator'), { mode: 0o700 });
    ceph = await startCephRgw();
    redis = await startRedis();
    writerA = await startGateway({
      env: { ...writerEnv(), TAPE__STORAGE__TRACKS__S3__CREATE_BUCKET: 'true' },
      config: { localnet: { slot_ms: 100 } },
    });
    // The same storage-authority key, given explicitly; A's chain.
    writerB = await startGateway({
      rpcUrl: writerA.rpcUrl,
      env: {
        ...writerEnv(),
        TAPE__CHAIN__GATEWAY_KEYPAIR: join(writerA.dataDir, 'gateway-key.json'),
      },
    });
    reader = await startGateway({ rpcUrl: writerA.rpcUrl, env: sharedEnv() });
    lb = await startRoundRobin([writerA.s3Url, writerB.s3Url]);
    // Operators on each writer's machine: their own data directory, the shared settings.
    operatorA = new CliUser(writerA, { ...sharedEnv(), TAPE_DATA_DIR: writerA.dataDir });
    operatorB = new CliUser(writerB, {
      ...sharedEnv(),
      TAPE_DATA_DIR: writerB.dataDir,
      TAPE__CHAIN__GATEWAY_KEYPAIR: join(writerA.dataDir, 'gateway-key.json'),
    });
    users.push(operatorA, operatorB);
    gatewayKey = (await operatorA.ok(['gateway', 'key'])).trim();
    expect((await operatorB.ok(['gateway', 'key'])).trim()).toBe(gatewayKey);
  });

  afterAll(async () => {
    await lb?.stop();
    for (const gw of [reader, writerB, writerA]) await gw?.stop();
    await redis?.stop();
    await ceph?.stop();
    users.forEach((u) => u.cleanup());
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('both gateways are writers with one key', async () => {
    for (const gw of [writerA, writerB]) {
      const health = (await (await fetch(`${gw.url}/healthz`)).json()) as { role: string };
      expect(health.role).toBe('writer');
    }
  });

  it('a credential issued through A works at once on B; revoked through B, A refuses it', async () => {
    const { tape, label } = await newTape('8m');
    const credential = await issue(operatorA, tape);
    const onB = awsCli(writerB.s3Url, credential.id, credential.secret);
    const listed = await onB('s3api', 'list-objects-v2', '--bucket', label);
    expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' });
    // Listed through either operator: one registry.
    expect(await operatorB.ok(['gateway', 'credentials', 'list'])).toContain(credential.id);

    await operatorB.ok(['gateway', 'credentials', 'revoke', credential.id]);
    const onA = awsCli(writerA.s3Url, credential.id, credential.secret);
    const refused = await onA('s3api', 'list-objects-v2', '--bucket', label, '--debug');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('InvalidAccessKeyId');
    // The sealed secret in Redis is not the secret.
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys('tape:shared:s3-credential:*');
      const stored = await Promise.all(keys.map((k) => client.hgetall(k)));
      expect(JSON.stringify(stored)).not.toContain(credential.secret);
    } finally {
      client.disconnect();
    }
  });

  it('aws s3 sync and rclone sync through the round-robin publish sites the reader serves, multipart included', async () => {
    const awsTape = await newTape('64m');
    const awsCredential = await issue(operatorA, awsTape.tape);
    const awsRoot = join(work, 'aws-site');
    writeTree(awsRoot, AWS_SITE);
    const aws = awsCli(lb.url, awsCredential.id, awsCredential.secret);
    const synced = await aws('s3', 'sync', awsRoot, `s3://${awsTape.label}`, '--size-only');
    expect({ code: synced.code, stderr: synced.stderr }).toEqual({ code: 0, stderr: '' });

    const rcloneTape = await newTape('32m');
    const rcloneCredential = await issue(operatorB, rcloneTape.tape);
    const rcloneRoot = join(work, 'rclone-site');
    writeTree(rcloneRoot, RCLONE_SITE);
    const rc = rclone(lb.url, rcloneCredential.id, rcloneCredential.secret);
    const rcloned = await rc(
      'sync',
      rcloneRoot,
      `:s3:${rcloneTape.label}`,
      '--size-only',
      '--s3-upload-cutoff',
      '5M',
      '--s3-chunk-size',
      '5M',
      '-v',
    );
    expect({ code: rcloned.code }).toEqual({ code: 0 });

    // Both writers answered S3 requests (round-robin): the uploads' parts reached both.
    for (const gw of [writerA, writerB]) {
      const metrics = await (await fetch(`${gw.adminUrl}/metrics`)).text();
      const answered =
        /tape_http_requests_total\{listener="s3",kind="s3",status_class="2xx"\} (\d+)/.exec(
          metrics,
        );
      expect(Number(answered?.[1] ?? 0)).toBeGreaterThan(5);
    }
    for (const [tape, files] of [
      [awsTape.tape, AWS_SITE],
      [rcloneTape.tape, RCLONE_SITE],
    ] as const) {
      for (const [name, data] of Object.entries(files)) {
        await eventually(
          `${name} served by the reader`,
          async () => {
            const res = await siteGet(reader.url, `/site/${tape}/${sitePath(name)}`);
            return res.status === 200 && res.body.equals(data);
          },
          ACROSS_PROCESSES,
        );
      }
    }
    // A second sync finds nothing to do: sizes and names listed through either writer agree.
    const again = await aws('s3', 'sync', awsRoot, `s3://${awsTape.label}`, '--size-only');
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain('upload:');
    // No upload is left open and the spool budget is all given back, over both writers.
    const client = new Redis(redis.url);
    try {
      expect(await client.zcard('tape:shared:mpu:open')).toBe(0);
      expect(Number((await client.get('tape:shared:spool:total')) ?? 0)).toBe(0);
    } finally {
      client.disconnect();
    }
  });

  it('the collector runs on one writer at a time (its lease), and both have run passes', async () => {
    await eventually(
      'both writers ran collector passes',
      async () => {
        const [a, b] = await Promise.all([gcStats(writerA), gcStats(writerB)]);
        return a.recentPasses.length > 0 && b.recentPasses.length > 0;
      },
      ACROSS_PROCESSES,
    );
    const [a, b] = await Promise.all([gcStats(writerA), gcStats(writerB)]);
    const windows = [...a.recentPasses, ...b.recentPasses].sort(
      (x, y) => x.startedAt - y.startedAt,
    );
    for (let i = 1; i < windows.length; i++) {
      expect(windows[i].startedAt).toBeGreaterThanOrEqual(windows[i - 1].endedAt);
    }
    expect(a.passes + b.passes).toBeGreaterThan(1);
    // They did contend: a pass asked for while the other writer held the lease was skipped.
    expect(a.skippedPasses + b.skippedPasses).toBeGreaterThan(0);
  });

  it('Redis down: /healthz says why, S3 requests are 503 SlowDown (never let through); back up, they work', async () => {
    const { tape, label } = await newTape('8m');
    const credential = await issue(operatorA, tape);
    const s3 = sdkClient(writerB.s3Url, credential.id, credential.secret);
    try {
      await s3.send(new ListObjectsV2Command({ Bucket: label }));
      await redis.stop();
      const health = await fetch(`${writerA.url}/healthz`);
      expect(health.status).toBe(503);
      const body = (await health.json()) as { checks: Record<string, string> };
      expect(body.checks['shared-state']).toMatch(/^shared redis unreachable/);
      const refused = await failure(s3.send(new ListObjectsV2Command({ Bucket: label })));
      expect({ name: refused.name, status: refused.status }).toEqual({
        name: 'SlowDown',
        status: 503,
      });
    } finally {
      // Same port, empty (no persistence in the test): the gateways reconnect by themselves.
      redis = await startRedis(redis.port);
    }
    await eventually(
      'writer A healthy again',
      async () => {
        return (await fetch(`${writerA.url}/healthz`)).status === 200;
      },
      ACROSS_PROCESSES,
    );
    const fresh = await issue(operatorB, tape);
    const again = sdkClient(writerA.s3Url, fresh.id, fresh.secret);
    try {
      await again.send(new ListObjectsV2Command({ Bucket: label }));
    } finally {
      again.destroy();
      s3.destroy();
    }
  });
});
