/**
 * Metering cost (`npm run bench -- metering`). In one run, with wrk on loopback, the 4 KiB site
 * page on the hostname route served by three reader gateways over one chain and track store:
 * metering off, metering on with in-memory counters, and metering on with a real redis-server
 * (default local pre-aggregation). Every request is counted (the budget is raised so none is
 * refused). Several rounds, order rotated, medians. Goals (issue 6): memory >= 0.9x off,
 * Redis >= 0.7x off.
 *
 * Environment: BENCH_METERING_ROUNDS (default 5), BENCH_METERING_SECONDS (default 5).
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/processes/free-port';
import { SiteGateway, startSiteGateway } from '../test/support/processes/site-gateway';
import { siteGet } from '../test/support/clients/site-http';
import { publishSite } from '../test/support/labs/site-publish';
import { median, Target, wrkRun } from './wrk-runner';

const ROUNDS = Number(process.env.BENCH_METERING_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_METERING_SECONDS ?? 5);
const CONNECTIONS = 50;
const HUGE_BUDGET = { limit: 1_000_000_000, ttl_secs: 60 };

/** Script calls Redis has served so far (the metering store sends one EVALSHA per INCRBY). */
function redisScriptCalls(url: string): number {
  const port = new URL(url).port;
  const info = spawnSync('redis-cli', ['-p', port, 'info', 'commandstats'], { encoding: 'utf8' });
  if (info.status !== 0 || !info.stdout.includes('# Commandstats')) {
    throw new Error(`redis-cli info commandstats failed: ${info.stderr || info.stdout}`);
  }
  let calls = 0;
  for (const match of info.stdout.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)) {
    calls += Number(match[1]);
  }
  return calls;
}

async function startRedis(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  await new Promise((r) => setTimeout(r, 300));
  return { child, url: `redis://127.0.0.1:${port}` };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-metering-'));
  const readers: SiteGateway[] = [];
  let writer: SiteGateway | undefined;
  let redis: { child: ChildProcess; url: string } | undefined;
  try {
    writer = await startSiteGateway({ dataDir });
    const page = '<!doctype html><title>bench</title>'.padEnd(4095, ' ') + '\n';
    const site = await publishSite(writer, { 'index.html': page });
    redis = await startRedis();
    const variants: [string, Record<string, unknown>][] = [
      ['metering off', { enabled: false }],
      ['metering on, memory', { enabled: true, site: HUGE_BUDGET }],
      ['metering on, redis', { enabled: true, site: HUGE_BUDGET, redis_url: redis.url }],
    ];
    const targets: Target[] = [];
    for (const [name, metering] of variants) {
      const gw = await startSiteGateway({ dataDir, rpcUrl: writer.rpcUrl, metering });
      readers.push(gw);
      const host = `${site.label}.localhost:${gw.port}`;
      const probe = await siteGet(gw.url, '/', { host });
      if (probe.status !== 200) throw new Error(`${name}: site answers ${probe.status}`);
      const counted = probe.headers['ratelimit-limit'] !== undefined;
      if (counted !== (metering.enabled === true)) throw new Error(`${name}: metering state wrong`);
      targets.push({ name, url: `${gw.url}/`, headers: [`Host: ${host}`], pids: () => [gw.pid] });
    }
    process.stdout.write(`4 KiB page, wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} rounds\n`);
    for (const t of targets) wrkRun(t, CONNECTIONS, SECONDS); // warm-up
    const rps = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const cpu = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const redisCallsPerSec: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < targets.length; i++) {
        const t = targets[(i + round) % targets.length];
        const callsBefore = t === targets[2] ? redisScriptCalls(redis.url) : 0;
        const result = wrkRun(t, CONNECTIONS, SECONDS);
        if (result.errors > 0) throw new Error(`${t.name}: ${result.errors} refused or failed`);
        if (t === targets[2]) {
          // The Redis verdict holds only if Redis did the counting: a gateway that fell back to
          // memory, or never reached Redis, would measure the memory store under another name.
          const calls = redisScriptCalls(redis.url) - callsBefore;
          if (calls <= 0) throw new Error(`${t.name}: Redis counted nothing during the run`);
          redisCallsPerSec.push(calls / SECONDS);
        }
        rps.get(t.name)!.push(result.rps);
        cpu.get(t.name)!.push(result.cpuUsPerRequest);
      }
    }
    const med = (t: Target) => median(rps.get(t.name)!);
    const cpuMed = (t: Target) => median(cpu.get(t.name)!);
    for (const t of targets) {
      process.stdout.write(
        `${t.name.padEnd(22)} ${med(t).toFixed(0).padStart(7)} req/s ${cpuMed(t).toFixed(1).padStart(6)} µs CPU/req\n`,
      );
    }
    const [off, memory, viaRedis] = targets;
    const verdict = (ratio: number, goal: number) => (ratio >= goal ? 'MET' : 'NOT MET');
    const line = (t: Target, goal: number) => {
      const ratio = med(t) / med(off);
      const byCpu = cpuMed(off) / cpuMed(t);
      return `${t.name} / off: ${ratio.toFixed(2)}x req/s, ${byCpu.toFixed(2)}x by CPU/req (goal >= ${goal}) ${verdict(ratio, goal)}\n`;
    };
    process.stdout.write(
      '\n' +
        line(memory, 0.9) +
        line(viaRedis, 0.7) +
        `Redis commands during the Redis runs: ${median(redisCallsPerSec).toFixed(0)}/s (median) for ${med(viaRedis).toFixed(0)} req/s\n` +
        `load average during the run: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}\n`,
    );
    site.remove();
  } finally {
    for (const gw of readers) await gw.stop();
    await writer?.stop();
    redis?.child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`metering benchmark failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
