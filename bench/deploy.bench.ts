/**
 * `tape deploy` benchmark on site versions (issue 31, "Done when": Cost and Speed), against a
 * gateway with the local network embedded, all in one run:
 *
 * - a first deploy of a generated 1,000-file, 50 MB site of mixed sizes (most files up to
 *   16 KiB, packed; every tenth about 0.5 MB, a track of its own), index.html naming every
 *   asset with its hash (test/support/fixtures/hashed-site.ts);
 * - a redeploy with one file changed, and one with nothing changed;
 * - `aws s3 sync --size-only` of a directory of the same shape (its own bytes, so the gateway
 *   holds none of them already) to another tape's bucket;
 * - `cp -r` of the directory: the floor;
 * - `aws s3 sync --size-only` of the sync's directory to a plain PUT endpoint in this process
 *   (each body read, its MD5 answered as ETag; no store, no chain): the floor of any S3 endpoint
 *   with aws-cli's 10 requests in flight, so the sync's goal (1.2x the deploy) is reachable only
 *   when this floor is within it.
 *
 * Each run uses fresh tapes; the order of deploy and sync alternates between runs. Prints the
 * medians, sync / deploy, the SOL and storage tokens the deploy wallet and the gateway key moved
 * (balances before and after), and where a deploy's time goes (from its progress lines).
 * Goals: first deploy ≤ 5 s, one changed file ≤ 1 s, sync ≤ 1.2× deploy, rent ≤ 0.01 SOL.
 *
 *   npm run bench -- deploy        (or: node dist-bench/bench/deploy.bench.js)
 *   BENCH_RUNS=1 BENCH_FILES=200 BENCH_BYTES=10000000 ... for a smaller run
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Connection, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import { writeSite } from '../test/support/fixtures/site-dir';
import { startBenchGateway } from './support/bench-gateway';
import { awsEnvironment, run, timed } from './support/aws-cli';
import { median } from './wrk-runner';
import { CLI_ENTRY } from '../test/support/clients/cli';
import { hashedSite } from '../test/support/fixtures/hashed-site';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const FILES = Number(process.env.BENCH_FILES ?? 1000);
const BYTES = Number(process.env.BENCH_BYTES ?? 50 * 1000 * 1000);
const GOAL_FIRST_S = 5;
const GOAL_REDEPLOY_S = 1;
const GOAL_SYNC_RATIO = 1.2;
const GOAL_RENT_SOL = 0.01;
const AWS = '/usr/bin/aws';
/** aws-cli's default `s3.max_concurrent_requests`. */
const AWS_IN_FLIGHT = 10;
/** A Publish the gateway sends for S3 writes carries one signature, its only cost. */
const LAMPORTS_PER_PUBLISH = 5000;

interface Balances {
  wallet: number;
  tokens: number;
  gatewayKey: number;
}

/** A deploy's progress lines (stderr) with the time each arrived, and when it ended. */
interface TimedRun {
  seconds: number;
  stdout: string;
  /** Seconds from the start to each phase line. */
  phases: { line: string; at: number }[];
}

async function main(): Promise<void> {
  const bench = await startBenchGateway('deploy');
  const { gateway, work } = bench;
  const chain = new Connection(gateway.rpcUrl, 'confirmed');
  const plain = await plainPutEndpoint();
  try {
    const { cliEnv: env, tape } = bench;
    await tape('keygen');
    await tape('airdrop', '--sol', '500', '--tokens', '1000000');
    const gatewayKey = new PublicKey((await tape('gateway', 'key')).trim());
    const balances = async (): Promise<Balances> => {
      const mine = JSON.parse(await tape('balance', '--json')) as {
        lamports: number;
        tokens: number;
      };
      return {
        wallet: mine.lamports,
        tokens: Number(mine.tokens),
        gatewayKey: await chain.getBalance(gatewayKey),
      };
    };
    const newTape = async (withCredential: boolean) => {
      const capacity = `${Math.ceil((BYTES * 2) / 1048576) + 16}m`;
      const created = await tape('create', '--capacity', capacity, '--duration', '1d', '--json');
      const { tape: address, label } = JSON.parse(created) as { tape: string; label: string };
      if (!withCredential) return { address, label, id: '', secret: '' };
      await tape('delegate', gatewayKey.toBase58(), '--tape', address);
      const issued = JSON.parse(
        await tape('gateway', 'credentials', 'issue', '--tape', address, '--json'),
      ) as { access_key_id: string; secret_access_key: string };
      return { address, label, id: issued.access_key_id, secret: issued.secret_access_key };
    };
    const awsEnv = awsEnvironment(work);

    const floor: number[] = [];
    // Floors of a redeploy in the same run: a bare Node start, the CLI's start (`--version`
    // loads every module a command does), one RPC round trip.
    const nodeStart: number[] = [];
    const cliStart: number[] = [];
    const rpcTrip: number[] = [];
    const first: number[] = [];
    const redeploy: number[] = [];
    const unchanged: number[] = [];
    const sync: number[] = [];
    const plainSync: number[] = [];
    const deployMoved: Balances[] = [];
    const syncMoved: Balances[] = [];
    let firstPhases: TimedRun['phases'] = [];
    let redeployPhases: TimedRun['phases'] = [];
    for (let i = 0; i < RUNS; i++) {
      const site = join(work, `deploy-${i}`);
      const syncSite = join(work, `sync-${i}`);
      const files = hashedSite({ count: FILES, totalBytes: BYTES, seed: `deploy-${i}` });
      writeSite(files, site);
      // One small asset (packed): its bytes change in place.
      const changed = join(
        site,
        Object.keys(files).find((n) => n.startsWith('assets/0/asset-7.'))!,
      );
      writeSite(hashedSite({ count: FILES, totalBytes: BYTES, seed: `sync-${i}` }), syncSite);
      const deployTape = await newTape(false);
      const syncTape = await newTape(true);

      const deploy = async () => {
        const deployArgs = ['deploy', join(site, 'index.html'), '--tape', deployTape.address];
        const before = await balances();
        const one = await timedCli(deployArgs, env);
        deployMoved.push(moved(before, await balances()));
        first.push(one.seconds);
        firstPhases = one.phases;
        writeFileSync(changed, Buffer.concat([readFileSync(changed), Buffer.from('changed')]));
        const again = await timedCli(deployArgs, env);
        if (!again.stdout.includes(`(1 uploaded, ${FILES - 1} unchanged)`))
          throw new Error(`the redeploy did not change one file: ${again.stdout}`);
        redeploy.push(again.seconds);
        redeployPhases = again.phases;
        unchanged.push((await timedCli(deployArgs, env)).seconds);
      };
      const syncIt = async () => {
        const before = await balances();
        const started = process.hrtime.bigint();
        await run(
          AWS,
          [
            '--endpoint-url',
            gateway.s3Url,
            's3',
            'sync',
            syncSite,
            `s3://${syncTape.label}`,
            '--size-only',
            '--no-progress',
          ],
          { ...awsEnv, AWS_ACCESS_KEY_ID: syncTape.id, AWS_SECRET_ACCESS_KEY: syncTape.secret },
        );
        sync.push(Number(process.hrtime.bigint() - started) / 1e9);
        syncMoved.push(moved(before, await balances()));
      };
      if (i % 2 === 0) {
        await deploy();
        await syncIt();
      } else {
        await syncIt();
        await deploy();
      }
      plainSync.push(
        await timed(() =>
          run(
            AWS,
            [
              '--endpoint-url',
              plain.url,
              's3',
              'sync',
              syncSite,
              's3://plain',
              '--size-only',
              '--no-progress',
            ],
            { ...awsEnv, AWS_ACCESS_KEY_ID: 'plain', AWS_SECRET_ACCESS_KEY: 'plain' },
          ),
        ),
      );
      const copyStarted = process.hrtime.bigint();
      await run('cp', ['-r', site, join(work, `copy-${i}`)], process.env);
      floor.push(Number(process.hrtime.bigint() - copyStarted) / 1e9);
      nodeStart.push(await timed(() => run(process.execPath, ['-e', '0'], env)));
      cliStart.push(await timed(() => run(process.execPath, [CLI_ENTRY, '--version'], env)));
      rpcTrip.push(await timed(() => chain.getSlot()));
      process.stdout.write(
        `run ${i + 1}/${RUNS}: first deploy ${first[i].toFixed(2)} s, one changed ${redeploy[i].toFixed(2)} s, nothing changed ${unchanged[i].toFixed(2)} s, aws s3 sync ${sync[i].toFixed(2)} s (plain PUT endpoint ${plainSync[i].toFixed(2)} s), cp -r ${floor[i].toFixed(2)} s\n`,
      );
    }

    const ratio = median(sync) / median(first);
    const sol = (lamports: number) => (lamports / LAMPORTS_PER_SOL).toFixed(6);
    const worst = (list: Balances[], key: keyof Balances) => Math.max(...list.map((b) => b[key]));
    const deployRent = worst(deployMoved, 'wallet') + worst(deployMoved, 'gatewayKey');
    const syncRent = worst(syncMoved, 'wallet') + worst(syncMoved, 'gatewayKey');
    const goal = (met: boolean) => (met ? 'met' : 'NOT met');
    const syncRounds = Math.round(
      median(syncMoved.map((b) => b.gatewayKey)) / LAMPORTS_PER_PUBLISH,
    );
    process.stdout.write(
      `site: ${FILES} files, ${(BYTES / 1e6).toFixed(1)} MB (mixed sizes); ${RUNS} runs; medians:\n`,
    );
    const rows: [string, string, string][] = [
      ['cp -r (floor)', `${median(floor).toFixed(2)} s`, ''],
      ['node -e 0', `${median(nodeStart).toFixed(2)} s`, 'floor of any CLI start'],
      ['tape --version', `${median(cliStart).toFixed(2)} s`, "the CLI's start-up"],
      ['one RPC round trip', `${(median(rpcTrip) * 1000).toFixed(0)} ms`, 'getSlot'],
      [
        'aws s3 sync, plain PUT',
        `${median(plainSync).toFixed(2)} s`,
        `floor of any S3 endpoint: ${(median(plainSync) / median(first)).toFixed(2)}x the first deploy`,
      ],
      [
        'first deploy',
        `${median(first).toFixed(2)} s`,
        `goal ≤ ${GOAL_FIRST_S} s: ${goal(median(first) <= GOAL_FIRST_S)}`,
      ],
      [
        're-deploy, 1 file changed',
        `${median(redeploy).toFixed(2)} s`,
        `goal ≤ ${GOAL_REDEPLOY_S} s: ${goal(median(redeploy) <= GOAL_REDEPLOY_S)}`,
      ],
      ['re-deploy, nothing changed', `${median(unchanged).toFixed(2)} s`, ''],
      [
        'aws s3 sync (first)',
        `${median(sync).toFixed(2)} s`,
        // Each PutObject is answered once its group's version is confirmed (docs/s3.md): with
        // aws-cli's 10 requests in flight, about FILES / 10 Publish rounds one after another.
        `${((median(sync) * 1000) / Math.ceil(FILES / AWS_IN_FLIGHT)).toFixed(0)} ms per round of ${AWS_IN_FLIGHT} PUTs`,
      ],
      [
        'sync rounds (Publishes)',
        `${syncRounds}`,
        // From the gateway key's fees: one Publish per group-commit round.
        `${((median(sync) * 1000) / syncRounds).toFixed(0)} ms per round, ${(FILES / syncRounds).toFixed(1)} PUTs per round (at best ${AWS_IN_FLIGHT})`,
      ],
      [
        'sync / first deploy',
        `${ratio.toFixed(2)}x`,
        `goal ≤ ${GOAL_SYNC_RATIO}x: ${goal(ratio <= GOAL_SYNC_RATIO)}`,
      ],
    ];
    for (const [name, value, note] of rows) {
      process.stdout.write(`${name.padEnd(28)} ${value.padStart(8)}  ${note}\n`);
    }
    process.stdout.write(
      `SOL moved (most of ${RUNS} runs): deploy wallet ${sol(worst(deployMoved, 'wallet'))}, gateway key ${sol(worst(deployMoved, 'gatewayKey'))}, tokens ${worst(deployMoved, 'tokens')}; ` +
        `aws s3 sync: wallet ${sol(worst(syncMoved, 'wallet'))}, gateway key ${sol(worst(syncMoved, 'gatewayKey'))}, tokens ${worst(syncMoved, 'tokens')}; ` +
        `goal ≤ ${GOAL_RENT_SOL} SOL each: ${goal(deployRent <= GOAL_RENT_SOL * LAMPORTS_PER_SOL && syncRent <= GOAL_RENT_SOL * LAMPORTS_PER_SOL)}\n`,
    );
    process.stdout.write(`where the last run's first deploy went: ${phaseText(firstPhases)}\n`);
    process.stdout.write(`where its one-file redeploy went: ${phaseText(redeployPhases)}\n`);
    process.stdout.write(
      `${JSON.stringify({
        bench: 'deploy',
        files: FILES,
        bytes: BYTES,
        runs: RUNS,
        cp_s: floor,
        node_start_s: nodeStart,
        cli_start_s: cliStart,
        rpc_trip_s: rpcTrip,
        first_s: first,
        redeploy_s: redeploy,
        unchanged_s: unchanged,
        sync_s: sync,
        plain_sync_s: plainSync,
        ratio,
        deploy_moved: deployMoved,
        sync_moved: syncMoved,
      })}\n`,
    );
  } finally {
    plain.server.close();
    await bench.stop();
  }
}

/**
 * The least an S3 endpoint can do for `aws s3 sync`: an empty listing, and each PutObject's
 * body read whole and answered with its MD5 as ETag (what aws-cli checks). Nothing is kept.
 */
function plainPutEndpoint(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (req.method !== 'PUT') {
      req.resume();
      res.setHeader('Content-Type', 'application/xml');
      res.end(
        '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
          '<Name>plain</Name><Prefix></Prefix><KeyCount>0</KeyCount><MaxKeys>1000</MaxKeys>' +
          '<EncodingType>url</EncodingType><IsTruncated>false</IsTruncated></ListBucketResult>',
      );
      return;
    }
    const md5 = createHash('md5');
    req.on('data', (chunk: Buffer) => md5.update(chunk));
    req.on('end', () => {
      res.setHeader('ETag', `"${md5.digest('hex')}"`);
      res.end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

function moved(before: Balances, after: Balances): Balances {
  return {
    wallet: before.wallet - after.wallet,
    tokens: before.tokens - after.tokens,
    gatewayKey: before.gatewayKey - after.gatewayKey,
  };
}

/** The progress lines' phases: start → hashed → planned ("N changed") → uploading → done. */
function phaseText(phases: TimedRun['phases']): string {
  const names: [RegExp, string][] = [
    [/^hashed /, 'start-up, scan and hashing'],
    [/ changed, \d+ unchanged/, 'reading the current version and planning'],
    [/^uploading /, 'asking what the gateway lacks'],
  ];
  let last = 0;
  const parts: string[] = [];
  for (const [pattern, name] of names) {
    const hit = phases.find((p) => pattern.test(p.line));
    if (!hit) continue;
    parts.push(`${name} ${(hit.at - last).toFixed(2)} s`);
    last = hit.at;
  }
  const end = phases[phases.length - 1].at;
  parts.push(`uploads, certification and Publish ${(end - last).toFixed(2)} s`);
  return parts.join(', ');
}

/** Runs the CLI, timing it and each stderr line as it arrives. */
function timedCli(args: string[], env: NodeJS.ProcessEnv): Promise<TimedRun> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const at = () => Number(process.hrtime.bigint() - started) / 1e9;
    const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const phases: TimedRun['phases'] = [];
    let stdout = '';
    let stderr = '';
    let pending = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      pending += d.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) phases.push({ line, at: at() });
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const seconds = at();
      phases.push({ line: '(exit)', at: seconds });
      if (code !== 0) reject(new Error(`tape ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve({ seconds, stdout, phases });
    });
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`deploy benchmark failed: ${(err as Error).message}\n`);
  process.exit(1);
});
