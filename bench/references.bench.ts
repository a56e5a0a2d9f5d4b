/**
 * Recording a version's references (`npm run bench -- references`), file store: the 7,000
 * tracks of a 100,000-name version claimed one at a time (as before `claimMany`) against one
 * batch, then looked for again (32 at once, as the publish service does); a staging claim under
 * the tape's bound (docs/uploads.md, "Version bytes") for a blob the tape already references
 * (a redeploy's unchanged file) and for a new one (the sum over the tape's blobs); and the
 * collector's targeted read of the tape (`referencesOfTape`). Medians of ROUNDS.
 *
 * Environment: BENCH_REFERENCES_TRACKS (default 7000), BENCH_REFERENCES_ROUNDS (default 5).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stagingOwner, versionOwner } from '../src/tracks/gc/version-owner';
import { FileTrackStore } from '../src/tracks/file-track-store';
import type { TrackClaim } from '../src/tracks/track-store';
import { median } from './wrk-runner';

const TRACKS = Number(process.env.BENCH_REFERENCES_TRACKS ?? 7000);
const ROUNDS = Number(process.env.BENCH_REFERENCES_ROUNDS ?? 5);
const TAPE = 'GegjFWW8SVeSTqsyo9ZkEzCQY2mY55T2AUazk4kjfYyT';

async function ms(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function round() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-references-'));
  const store = new FileTrackStore(join(dir, 'tracks'));
  const claims = (version: number): TrackClaim[] =>
    commitments.map((commitment) => ({
      commitment,
      track: versionOwner(TAPE, version, Buffer.alloc(32, version)),
      tape: TAPE,
      role: 'track',
      size: 4096,
    }));
  const commitments = Array.from({ length: TRACKS }, () => randomBytes(32));
  await store.claim(claims(9)[0]); // opens the index
  const oneByOne = await ms(async () => {
    for (const c of claims(1)) await store.claim(c);
  });
  const batch = await ms(() => store.claimMany(claims(2)));
  const lookups = await ms(async () => {
    for (let i = 0; i < TRACKS; i += 32) {
      await Promise.all(commitments.slice(i, i + 32).map((c) => store.has(c)));
    }
  });
  const staged = (commitment: Buffer): TrackClaim => ({
    commitment,
    track: stagingOwner(TAPE, 2),
    tape: TAPE,
    role: 'segment',
    size: 4096,
  });
  const limits = { maxTapeBytes: Number.MAX_SAFE_INTEGER };
  const known = await ms(() => store.claim(staged(commitments[0]), limits));
  const fresh = await ms(() => store.claim(staged(randomBytes(32)), limits));
  const ofTape = await ms(() => store.referencesOfTape(TAPE));
  rmSync(dir, { recursive: true, force: true });
  return { oneByOne, batch, lookups, known, fresh, ofTape };
}

async function main(): Promise<void> {
  const runs: Awaited<ReturnType<typeof round>>[] = [];
  for (let i = 0; i < ROUNDS; i++) runs.push(await round());
  const m = (k: keyof (typeof runs)[number]) =>
    median(runs.map((r) => r[k]))
      .toFixed(1)
      .padStart(8);
  process.stdout.write(
    `${TRACKS} tracks, ${ROUNDS} rounds, medians (ms)\n` +
      `claims one at a time          ${m('oneByOne')}\n` +
      `claimMany (one transaction)   ${m('batch')}\n` +
      `lookups, 32 at once           ${m('lookups')}\n` +
      `staging claim, tape's blob    ${m('known')}\n` +
      `staging claim, new blob       ${m('fresh')}   (sum over ${2 * TRACKS} rows)\n` +
      `referencesOfTape              ${m('ofTape')}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
