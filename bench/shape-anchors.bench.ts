/**
 * What idle full collections cost Node's HTTP code, and what the shape anchors give back
 * (`npm run bench -- shape-anchors`; `docs/architecture.md`, "The process tax").
 *
 * Three plain `http` servers answering the site page's 304 (`shape-anchors-server.ts`): one
 * started clean, one primed (240 requests of its own with eight full collections between
 * batches, as a gateway idles through startup and health checks), one primed with the anchors
 * of `src/http/shape-anchors.ts`. wrk on loopback, rounds with the order rotated, medians of
 * the server's CPU time per request (steadier than req/s on a shared machine).
 *
 * Environment: BENCH_ANCHOR_ROUNDS (default 5), BENCH_ANCHOR_SECONDS per run (default 3).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { median, Target, wrkRun } from './wrk-runner';

const ROUNDS = Number(process.env.BENCH_ANCHOR_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_ANCHOR_SECONDS ?? 3);
const MODES = ['clean', 'primed', 'anchored'] as const;

function startServer(mode: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    ['--no-memory-reducer', '--expose-gc', join(__dirname, 'shape-anchors-server.js')],
    { env: { ...process.env, MODE: mode }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /^ready (\d+)$/m.exec(out);
      if (ready) resolve({ child, port: Number(ready[1]) });
    });
    child.once('exit', (code) => reject(new Error(`${mode} server exited (${code})`)));
  });
}

async function main(): Promise<void> {
  const servers = await Promise.all(MODES.map((mode) => startServer(mode)));
  try {
    const targets: Target[] = servers.map(({ child, port }, i) => ({
      name: MODES[i],
      url: `http://127.0.0.1:${port}/`,
      headers: [],
      pids: () => [child.pid!],
    }));
    for (const target of targets) wrkRun(target, 50, 1); // warm-up
    const cpu = new Map<string, number[]>(MODES.map((mode) => [mode, []]));
    const rps = new Map<string, number[]>(MODES.map((mode) => [mode, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < targets.length; i++) {
        const target = targets[(i + round) % targets.length];
        const run = wrkRun(target, 50, SECONDS);
        cpu.get(target.name)!.push(run.cpuUsPerRequest);
        rps.get(target.name)!.push(run.rps);
      }
    }
    process.stdout.write(
      `plain http server, 304, wrk -t1 -c50 -d${SECONDS}s, ${ROUNDS} rounds, order rotated\n\n`,
    );
    for (const mode of MODES) {
      const runs = cpu
        .get(mode)!
        .map((v) => v.toFixed(0))
        .join(', ');
      process.stdout.write(
        `${mode.padEnd(9)} ${median(rps.get(mode)!).toFixed(0).padStart(6)} req/s ` +
          `${median(cpu.get(mode)!).toFixed(1).padStart(6)} µs CPU/req  (runs: ${runs})\n`,
      );
    }
    const clean = median(cpu.get('clean')!);
    process.stdout.write(
      `\nprimed / clean, CPU per request: ${(median(cpu.get('primed')!) / clean).toFixed(2)}x\n` +
        `anchored / clean, CPU per request: ${(median(cpu.get('anchored')!) / clean).toFixed(2)}x\n`,
    );
  } finally {
    for (const { child } of servers) child.kill('SIGKILL');
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
