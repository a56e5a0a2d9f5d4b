/** wrk on loopback, with the server's CPU time per request (steadier than req/s on a shared machine). */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface Target {
  name: string;
  url: string;
  /** Extra wrk headers (Host, If-None-Match). */
  headers: string[];
  /** The server's processes, for CPU time per request. */
  pids: () => number[];
}

export interface WrkResult {
  rps: number;
  /** Responses with a status other than 2xx or 3xx. */
  errors: number;
  /** wrk's socket errors (connect, read, write, timeout), summed. */
  socketErrors: number;
  /** Server CPU microseconds per request: steadier than req/s when the machine is shared. */
  cpuUsPerRequest: number;
}

export const CLOCK_TICKS_PER_SEC =
  Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** User + system CPU ticks of the processes and their children (nginx's worker). */
export function cpuTicks(pids: number[]): number {
  let ticks = 0;
  const all = new Set(pids);
  for (const pid of pids) {
    const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout;
    for (const child of children.split('\n').filter(Boolean)) all.add(Number(child));
  }
  for (const pid of all) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited
    }
  }
  return ticks;
}

export function wrkRun(target: Target, connections: number, seconds: number): WrkResult {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`];
  for (const header of target.headers) args.push('-H', header);
  args.push(target.url);
  const before = cpuTicks(target.pids());
  const run = spawnSync('wrk', args, { encoding: 'utf8' });
  const cpuSecs = (cpuTicks(target.pids()) - before) / CLOCK_TICKS_PER_SEC;
  if (run.status !== 0) throw new Error(`wrk failed: ${run.stderr}`);
  // A figure wrk did not print is a failed run, not a zero: every verdict reads these.
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)?.[1] ?? NaN);
  const requests = Number(/(\d+) requests in/.exec(run.stdout)?.[1] ?? NaN);
  if (!(rps > 0) || !(requests > 0)) {
    throw new Error(`wrk measured no requests on ${target.name}: ${run.stdout}`);
  }
  const errors = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(run.stdout)?.[1] ?? 0);
  const socket = /Socket errors: (.*)/.exec(run.stdout)?.[1];
  let socketErrors = 0;
  if (socket) {
    process.stdout.write(`  (${target.name}: socket errors ${socket})\n`);
    for (const count of socket.matchAll(/\d+/g)) socketErrors += Number(count[0]);
  }
  return { rps, errors, socketErrors, cpuUsPerRequest: (cpuSecs * 1e6) / requests };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
