import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { findRepoRoot } from './support/processes/gateway';
import { startLocalnetProcess } from './support/processes/localnet';
import { openSqlite } from '../src/config/sqlite';

/**
 * A ledger made by a build before the tape record grew (no layout mark in its meta, 114-byte
 * tapes) is refused at start with one line saying what to do, instead of failing each request
 * that reads a tape (issue 31: "a clear message on an old data directory").
 */
jest.setTimeout(120_000);

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A data directory whose ledger this build made (started once, then killed). */
async function ledgerOfThisBuild(): Promise<string> {
  const net = await startLocalnetProcess();
  await net.stop('SIGKILL'); // keeps the directory
  dirs.push(net.dataDir);
  return net.dataDir;
}

it.each([
  ['from before the version pointer (no layout mark, 114-byte tapes)', undefined, 114],
  ['of program 1.1.0 (258-byte tapes with the per-file counters)', '258', 258],
  ['of program 1.2.0 (242-byte tapes with one previous version, no history)', '242', 242],
])('refuses a ledger %s with one line saying what to do', async (_what, mark, bytes) => {
  const dataDir = await ledgerOfThisBuild();
  // The same ledger as an older build left it: no layout mark.
  const db = openSqlite(join(dataDir, 'ledger.sqlite'));
  expect(db.prepare("SELECT value FROM meta WHERE key = 'tape_record_bytes'").get()).toEqual({
    value: '2221',
  });
  if (mark === undefined) db.prepare("DELETE FROM meta WHERE key = 'tape_record_bytes'").run();
  else db.prepare("UPDATE meta SET value = ? WHERE key = 'tape_record_bytes'").run(mark);
  db.close();

  const run = spawnSync(
    process.execPath,
    [join(findRepoRoot(__dirname), 'dist', 'localnet', 'standalone.js')],
    {
      env: { ...process.env, TAPE_DATA_DIR: dataDir, TAPE_LOCALNET_PORT: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  expect(run.status).toBe(1);
  expect(run.stderr.trim().split('\n').pop()).toBe(
    `localnet failed to start: the local network's ledger in ${dataDir} was made by an older build ` +
      `(tape records of ${bytes} bytes; this build's are 2221) and its tapes cannot be read: start on a ` +
      `fresh data directory (move ${dataDir} aside, or set TAPE_DATA_DIR to a new one) and create ` +
      'the tapes again (docs/localnet.md, "Upgrading")',
  );
});

it('starts again on a ledger this build made', async () => {
  const again = await startLocalnetProcess({ dataDir: await ledgerOfThisBuild() });
  await again.stop();
});
