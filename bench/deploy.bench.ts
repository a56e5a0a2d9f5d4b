/**
 * `tape deploy` benchmark: a generated 1,000-file, 50 MB site, deployed for the first time and
 * then again with one file changed, against a gateway with the local network embedded, both
 * started here. `cp -r` of the same directory, in the same run, is the floor. Goals: first
 * deploy ≤ 15 s, re-deploy ≤ 2 s.
 *
 *   npm run bench -- deploy        (or: node dist-bench/bench/deploy.bench.js)
 *   BENCH_FILES=200 BENCH_BYTES=10000000 ... for a smaller run
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSite, writeSite } from '../test/support/cli-site';
import { startBenchGateway } from '../test/support/bench-gateway';
import { CLI_ENTRY } from '../test/support/cli-process';

const FILES = Number(process.env.BENCH_FILES ?? 1000);
const BYTES = Number(process.env.BENCH_BYTES ?? 50 * 1024 * 1024);
const GOAL_FIRST_S = 15;
const GOAL_REDEPLOY_S = 2;

async function main(): Promise<void> {
  const bench = await startBenchGateway('deploy');
  const { work } = bench;
  try {
    const tape = (...args: string[]) =>
      execFileSync(process.execPath, [CLI_ENTRY, ...args], {
        env: bench.cliEnv,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    tape('keygen');
    tape('airdrop', '--sol', '100', '--tokens', '100000');
    tape('create', '--capacity', `${Math.ceil((BYTES * 2) / 1048576) + 16}m`, '--duration', '1d');

    const site = join(work, 'site');
    writeSite(generateSite(FILES, BYTES, 'bench'), site);
    const floor = timed(() => execFileSync('cp', ['-r', site, join(work, 'copy')]));
    const first = timed(() => tape('deploy', join(site, 'index.html')));
    const changed = join(site, 'section-7', 'page-0', 'file-7.woff2');
    writeFileSync(changed, Buffer.concat([readFileSync(changed), Buffer.from('changed')]));
    const redeploy = timed(() => tape('deploy', join(site, 'index.html')));
    const unchanged = timed(() => tape('deploy', join(site, 'index.html')));

    const mb = BYTES / 1e6;
    const rows: [string, number, string][] = [
      [`cp -r (floor)`, floor.seconds, ''],
      [`first deploy`, first.seconds, `goal ≤ ${GOAL_FIRST_S} s`],
      [`re-deploy, 1 file changed`, redeploy.seconds, `goal ≤ ${GOAL_REDEPLOY_S} s`],
      [`re-deploy, nothing changed`, unchanged.seconds, ''],
    ];
    process.stdout.write(`site: ${FILES} files, ${mb.toFixed(1)} MB\n`);
    for (const [name, seconds, goal] of rows) {
      process.stdout.write(`${name.padEnd(28)} ${seconds.toFixed(2).padStart(7)} s  ${goal}\n`);
    }
    process.stdout.write(
      `first deploy: ${(mb / first.seconds).toFixed(1)} MB/s, ${(FILES / first.seconds).toFixed(0)} files/s\n`,
    );
    process.stdout.write(
      `last lines: ${redeploy.output.trim().split('\n')[0]} | ${unchanged.output.trim().split('\n')[0]}\n`,
    );
    process.stdout.write(
      `${JSON.stringify({ bench: 'deploy', files: FILES, bytes: BYTES, cp_s: floor.seconds, first_s: first.seconds, redeploy_s: redeploy.seconds, unchanged_s: unchanged.seconds })}\n`,
    );
  } finally {
    await bench.stop();
  }
}

function timed<T>(run: () => T): { seconds: number; output: string } {
  const started = process.hrtime.bigint();
  const output = run();
  return {
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
    output: typeof output === 'string' ? output : '',
  };
}

main().catch((err: unknown) => {
  process.stderr.write(`deploy benchmark failed: ${(err as Error).message}\n`);
  process.exit(1);
});
