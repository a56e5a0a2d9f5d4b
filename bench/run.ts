/**
 * `npm run bench`: runs every benchmark in bench/ one after another (each in its own process, so
 * one's memory and sockets do not disturb the next) and prints their figures.
 * `npm run bench -- site object` runs only the named ones.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const only = process.argv.slice(2);
const files = readdirSync(__dirname)
  .filter((f) => f.endsWith('.bench.js'))
  .filter((f) => only.length === 0 || only.some((name) => f.startsWith(name)))
  .sort();

let failed = 0;
for (const file of files) {
  process.stdout.write(`\n=== ${file.replace(/\.bench\.js$/, '')} ===\n`);
  const run = spawnSync(process.execPath, ['--expose-gc', join(__dirname, file)], {
    stdio: 'inherit',
    timeout: 15 * 60 * 1000,
  });
  if (run.status !== 0) {
    failed++;
    process.stdout.write(`benchmark ${file} failed (exit ${run.status ?? run.signal})\n`);
  }
}
process.exit(failed > 0 ? 1 : 0);
