/**
 * `npm run bench -- replicas`: what a replica costs on this machine. The topology of
 * docs/operator.md "Scaling out" (Ceph RGW bucket, a writer, reader gateways on the writer's
 * chain and the bucket, nginx round-robin in front): a 4 KiB index.html published through the
 * writer, then wrk on
 *
 * - one reader, directly;
 * - one reader behind nginx (the balancer's own cost);
 * - three readers behind nginx (round-robin, keep-alive upstreams);
 *
 * in the same rounds, order rotated; medians of req/s and of the servers' CPU time per request
 * (gateways plus nginx). Every gateway, nginx and wrk share the same two cores here, so three
 * replicas cannot be faster than one: the ratio shows the cost of the extra processes and the
 * proxy hop. docs/operator.md works out what they give on separate machines.
 *
 * nginx keeps as many idle connections to its upstreams as wrk opens (`keepalive`): with fewer
 * it opens and closes one per excess request, which costs more than the proxying itself.
 *
 * Environment: BENCH_RUNS (rounds, default 5), BENCH_WRK_SECONDS (default 5),
 * BENCH_CONNECTIONS (default 50). Metering on, with a budget no run reaches.
 */
import { join } from 'node:path';
import { CliUser, keyValues } from '../test/support/clients/cli';
import { removeSite, writeSite } from '../test/support/fixtures/site-dir';
import type { GatewayProcess } from '../test/support/processes/gateway';
import { RoundRobin, startRoundRobin } from '../test/support/processes/nginx-round-robin';
import { S3StoreLab, startS3StoreLab } from '../test/support/labs/s3-store-lab';
import { siteGet } from '../test/support/clients/site-http';
import { median, Target, wrkRun } from './wrk-runner';
import { page4k } from './support/page';

const ROUNDS = Number(process.env.BENCH_RUNS ?? 5);
const SECONDS = Number(process.env.BENCH_WRK_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const READERS = 3;
/** Idle upstream connections nginx keeps: at least the connections wrk opens. */
const KEEPALIVE = CONNECTIONS + 14;
const METERING_ENV = {
  TAPE__GATEWAY__METERING__SITE__LIMIT: String(1e9),
  TAPE__GATEWAY__METERING__SITE__TTL_SECS: '60',
  TAPE_LOG_LEVEL: 'error',
};

const PAGE = page4k();
const print = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  let lab: S3StoreLab | undefined;
  const balancers: RoundRobin[] = [];
  let root: string | undefined;
  let user: CliUser | undefined;
  try {
    print('preparing: Ceph RGW, a writer, the site deployed through it, three readers, nginx');
    lab = await startS3StoreLab({ env: METERING_ENV });
    user = new CliUser({ url: lab.writer.url, rpcUrl: lab.writer.rpcUrl });
    await user.fundedWallet();
    const tape = keyValues(await user.ok(['create', '--capacity', '10m', '--duration', '1d']))[
      'tape address'
    ];
    root = writeSite({ 'index.html': PAGE, '404.html': '<h1>missing</h1>' });
    await user.ok(['deploy', join(root, 'index.html')]);
    const readers: GatewayProcess[] = [];
    for (let i = 0; i < READERS; i++) readers.push(await lab.startReader());
    const one = await startRoundRobin([readers[0].url], { keepalive: KEEPALIVE });
    balancers.push(one);
    const three = await startRoundRobin(
      readers.map((r) => r.url),
      { keepalive: KEEPALIVE },
    );
    balancers.push(three);

    const path = `/site/${tape}/index.html`;
    const pidsOf = (gateways: GatewayProcess[], lb?: RoundRobin) => () => [
      ...gateways.map((g) => g.child.pid!),
      ...(lb ? [lb.child.pid!] : []),
    ];
    const targets: Target[] = [
      { name: '1 reader', url: readers[0].url + path, headers: [], pids: pidsOf([readers[0]]) },
      {
        name: '1 reader + nginx',
        url: one.url + path,
        headers: [],
        pids: pidsOf([readers[0]], one),
      },
      {
        name: '3 readers + nginx',
        url: three.url + path,
        headers: [],
        pids: pidsOf(readers, three),
      },
    ];
    for (const t of targets) {
      // Every reader must serve the page (each fills its caches here, not during a run).
      for (let i = 0; i < 2 * READERS; i++) {
        const res = await siteGet(t.url.slice(0, -path.length), path);
        if (res.status !== 200 || res.text !== PAGE) throw new Error(`${t.name}: ${res.status}`);
      }
      wrkRun(t, CONNECTIONS, 1); // warm-up
    }
    const rps = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const cpu = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    print(
      `\n4 KiB index.html, path route, metering on, wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} rounds (order rotated)`,
    );
    for (let round = 0; round < ROUNDS; round++) {
      const order = targets.map((_, i) => targets[(i + round) % targets.length]);
      const line: string[] = [];
      for (const t of order) {
        const result = wrkRun(t, CONNECTIONS, SECONDS);
        if (result.errors > 0) throw new Error(`${t.name}: ${result.errors} unexpected statuses`);
        rps.get(t.name)!.push(result.rps);
        cpu.get(t.name)!.push(result.cpuUsPerRequest);
        line.push(`${t.name} ${result.rps.toFixed(0)}`);
      }
      print(`  round ${round + 1}: ${line.join(', ')} req/s`);
    }
    for (const t of targets) {
      print(
        `  ${t.name.padEnd(18)} ${median(rps.get(t.name)!).toFixed(0).padStart(7)} req/s ` +
          `${median(cpu.get(t.name)!).toFixed(1).padStart(6)} µs server CPU/req (median)`,
      );
    }
    const single = median(rps.get('1 reader')!);
    const proxied = median(rps.get('1 reader + nginx')!);
    const triple = median(rps.get('3 readers + nginx')!);
    print(
      `  3 readers behind nginx / 1 reader: ${(triple / single).toFixed(2)}x req/s; ` +
        `/ 1 reader behind nginx: ${(triple / proxied).toFixed(2)}x (same 2 cores for all)`,
    );
  } finally {
    for (const b of balancers) await b.stop();
    await lab?.stop();
    user?.cleanup();
    if (root) removeSite(root);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`replicas benchmark failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
