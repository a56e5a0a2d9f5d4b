/**
 * S3 sync benchmark: `aws s3 sync --size-only --delete` of a generated 1,000-file, 50 MB site
 * to a gateway's S3 endpoint, against `tape deploy` of a site of the same shape, in the same run
 * (each on a fresh tape, with its own bytes so neither finds the other's tracks already stored;
 * the order alternates between runs). Then PutObject throughput for a 100 MB file: one SDK
 * PutObject request (streamed body), and `aws s3 cp` (multipart, 8 MiB parts). Goal: the sync
 * within 1.5x of tape deploy. Medians over BENCH_RUNS runs.
 *
 *   npm run bench -- s3        (or: node dist-bench/bench/s3.bench.js after npm run build)
 *   BENCH_RUNS=1 BENCH_FILES=200 BENCH_BYTES=10000000 BENCH_PUT_BYTES=20000000 ... smaller
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSite, writeSite } from '../test/support/fixtures/site-dir';
import { startBenchGateway } from './support/bench-gateway';
import { awsEnvironment, run, timed } from './support/aws-cli';
import { median } from './wrk-runner';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const FILES = Number(process.env.BENCH_FILES ?? 1000);
const BYTES = Number(process.env.BENCH_BYTES ?? 50 * 1024 * 1024);
const PUT_BYTES = Number(process.env.BENCH_PUT_BYTES ?? 100 * 1024 * 1024);
const GOAL_RATIO = 1.5;
/** aws-cli's `s3.max_concurrent_requests`; unset = its default (10). */
const AWS_CONCURRENCY = process.env.BENCH_AWS_CONCURRENCY;
const AWS = '/usr/bin/aws';

async function main(): Promise<void> {
  const bench = await startBenchGateway('s3');
  const { gateway, work } = bench;
  try {
    const { tape } = bench;
    await tape('keygen');
    await tape('airdrop', '--sol', '500', '--tokens', '1000000');
    const gatewayKey = (await tape('gateway', 'key')).trim();
    /** A fresh tape of `bytes` (plus room to spare) delegated to the gateway, with a credential. */
    const newTape = async (bytes: number) => {
      const capacity = `${Math.ceil(bytes / 1048576) + 16}m`;
      const created = await tape('create', '--capacity', capacity, '--duration', '1d', '--json');
      const { tape: address, label } = JSON.parse(created) as { tape: string; label: string };
      await tape('delegate', gatewayKey, '--tape', address);
      const issued = JSON.parse(
        await tape('gateway', 'credentials', 'issue', '--tape', address, '--json'),
      ) as { access_key_id: string; secret_access_key: string };
      return { address, label, id: issued.access_key_id, secret: issued.secret_access_key };
    };
    const awsEnv = awsEnvironment(work, AWS_CONCURRENCY);

    const deploySecs: number[] = [];
    const syncSecs: number[] = [];
    const resyncSecs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const deploySite = join(work, `deploy-${i}`);
      const syncSite = join(work, `sync-${i}`);
      writeSite(generateSite(FILES, BYTES, `deploy-${i}`), deploySite);
      writeSite(generateSite(FILES, BYTES, `sync-${i}`), syncSite);
      const deployTape = await newTape(BYTES * 2);
      const syncTape = await newTape(BYTES * 2);
      const deploy = async () => {
        deploySecs.push(
          await timed(() =>
            tape('deploy', join(deploySite, 'index.html'), '--tape', deployTape.address),
          ),
        );
      };
      const sync = async () => {
        const aws = (...args: string[]) =>
          run(AWS, ['--endpoint-url', gateway.s3Url, ...args], {
            ...awsEnv,
            AWS_ACCESS_KEY_ID: syncTape.id,
            AWS_SECRET_ACCESS_KEY: syncTape.secret,
          });
        const args = [
          's3',
          'sync',
          syncSite,
          `s3://${syncTape.label}`,
          '--size-only',
          '--delete',
          '--no-progress',
        ];
        syncSecs.push(await timed(() => aws(...args)));
        const again = await aws(...args);
        if (again.includes('upload:')) throw new Error(`second sync uploaded files:\n${again}`);
        resyncSecs.push(await timed(() => aws(...args)));
      };
      if (i % 2 === 0) {
        await deploy();
        await sync();
      } else {
        await sync();
        await deploy();
      }
      process.stdout.write(
        `run ${i + 1}/${RUNS}: tape deploy ${deploySecs[i].toFixed(2)} s, aws s3 sync ${syncSecs[i].toFixed(2)} s\n`,
      );
    }

    // Two uploads of the file per run, each a new object.
    const putTape = await newTape(PUT_BYTES * 2 * RUNS);
    const bigFile = join(work, 'big.bin');
    writeFileSync(bigFile, Buffer.alloc(PUT_BYTES, 7));
    const s3 = new S3Client({
      endpoint: gateway.s3Url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: putTape.id, secretAccessKey: putTape.secret },
    });
    const putSecs: number[] = [];
    const cpSecs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // A different first byte per run: each upload is new content, never already stored.
      const variant = Buffer.alloc(1, i);
      writeFileSync(bigFile, variant, { flag: 'r+' });
      putSecs.push(
        await timed(() =>
          s3.send(
            new PutObjectCommand({
              Bucket: putTape.label,
              Key: `put-${i}.bin`,
              Body: createReadStream(bigFile),
              ContentLength: PUT_BYTES,
            }),
          ),
        ),
      );
      writeFileSync(bigFile, Buffer.alloc(1, 100 + i), { flag: 'r+' });
      cpSecs.push(
        await timed(() =>
          run(
            AWS,
            [
              '--endpoint-url',
              gateway.s3Url,
              's3',
              'cp',
              bigFile,
              `s3://${putTape.label}/cp-${i}.bin`,
              '--no-progress',
            ],
            {
              ...awsEnv,
              AWS_ACCESS_KEY_ID: putTape.id,
              AWS_SECRET_ACCESS_KEY: putTape.secret,
            },
          ),
        ),
      );
    }
    s3.destroy();

    const deploy = median(deploySecs);
    const sync = median(syncSecs);
    const ratio = sync / deploy;
    const mb = BYTES / 1e6;
    const putMb = PUT_BYTES / 1e6;
    const putMiB = (PUT_BYTES / 1048576).toFixed(0);
    process.stdout.write(
      `site: ${FILES} files, ${mb.toFixed(1)} MB; ${RUNS} runs; aws-cli max_concurrent_requests ${AWS_CONCURRENCY ?? '10 (default)'}; medians:\n`,
    );
    const rows: [string, string, string][] = [
      ['tape deploy (first)', `${deploy.toFixed(2)} s`, `${(FILES / deploy).toFixed(0)} files/s`],
      ['aws s3 sync (first)', `${sync.toFixed(2)} s`, `${(FILES / sync).toFixed(0)} files/s`],
      ['aws s3 sync (nothing to do)', `${median(resyncSecs).toFixed(2)} s`, ''],
      [
        'sync / deploy',
        `${ratio.toFixed(2)}x`,
        `goal <= ${GOAL_RATIO}x: ${ratio <= GOAL_RATIO ? 'met' : 'NOT met'}`,
      ],
      [
        `PutObject ${putMiB} MiB (SDK)`,
        `${median(putSecs).toFixed(2)} s`,
        `${(putMb / median(putSecs)).toFixed(1)} MB/s`,
      ],
      [
        `aws s3 cp ${putMiB} MiB (multipart)`,
        `${median(cpSecs).toFixed(2)} s`,
        `${(putMb / median(cpSecs)).toFixed(1)} MB/s`,
      ],
    ];
    for (const [name, value, note] of rows) {
      process.stdout.write(`${name.padEnd(30)} ${value.padStart(9)}  ${note}\n`);
    }
    process.stdout.write(
      `${JSON.stringify({
        bench: 's3',
        files: FILES,
        bytes: BYTES,
        runs: RUNS,
        aws_concurrency: Number(AWS_CONCURRENCY ?? 10),
        deploy_s: deploySecs,
        sync_s: syncSecs,
        resync_s: resyncSecs,
        ratio,
        put_bytes: PUT_BYTES,
        put_s: putSecs,
        cp_s: cpSecs,
      })}\n`,
    );
  } finally {
    await bench.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`s3 benchmark failed: ${(err as Error).message}\n`);
  process.exit(1);
});
