/**
 * UploadParts into the disk spool (`npm run bench -- multipart-parts`): parts of one upload
 * written in parallel through `MultipartSpool.writePart` (hashed, spooled, recorded: each part's
 * record is swapped under the upload's completion lock, docs/s3.md "Multipart uploads"), against
 * the peer, the same bytes piped to plain files at the same concurrency, in the same run. The
 * record swaps queue one at a time per upload; this shows what that costs next to the disk.
 *
 * Two shapes: aws-cli's (8 MiB parts, 10 at a time) and the lock's worst case (64 KiB parts,
 * smaller than S3 lets any part but the last be, 16 at a time).
 *
 * Environment: BENCH_MULTIPART_ROUNDS (default 5).
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { S3Config } from '../src/config/s3.config';
import { StorageConfig } from '../src/config/storage.config';
import { MultipartSpool } from '../src/s3/tape-backend/multipart-spool';
import { SpoolBudget } from '../src/s3/tape-backend/spool-budget';
import { median } from './wrk-runner';

const ROUNDS = Number(process.env.BENCH_MULTIPART_ROUNDS ?? 5);
const TAPE = 'Bench11111111111111111111111111111111111111';

interface Shape {
  parts: number;
  bytes: number;
  concurrency: number;
}

/** Runs `write(n)` for parts 1..parts, `concurrency` at a time; the time taken in ms. */
async function timed(shape: Shape, write: (n: number) => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  let next = 1;
  const worker = async () => {
    while (next <= shape.parts) await write(next++);
  };
  await Promise.all(Array.from({ length: shape.concurrency }, worker));
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function spoolRound(shape: Shape, data: Buffer): Promise<number> {
  const s3 = Object.assign(new S3Config(), { max_spool_bytes: 1e12, spool_share_per_tape: 1 });
  const budget = new SpoolBudget(s3);
  const dir = mkdtempSync(join(tmpdir(), 'bench-mpu-'));
  const spool = new MultipartSpool(
    Object.assign(new StorageConfig(), { data_dir: dir }),
    budget,
    s3,
  );
  await spool.onModuleInit();
  const upload = await spool.create(
    { tapeAddress: TAPE, key: 'big.bin', contentType: undefined, metadata: {} },
    10,
  );
  const ms = await timed(shape, (n) =>
    spool.writePart(upload!, n, Readable.from([data]), budget.reserve(TAPE, data.length)),
  );
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

async function filesRound(shape: Shape, data: Buffer): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-files-'));
  const ms = await timed(shape, (n) =>
    pipeline(Readable.from([data]), createWriteStream(join(dir, `part-${n}.bin`))),
  );
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

async function main(): Promise<void> {
  const shapes: Shape[] = [
    { parts: 64, bytes: 8 * 1024 * 1024, concurrency: 10 },
    { parts: 1000, bytes: 64 * 1024, concurrency: 16 },
  ];
  for (const shape of shapes) {
    const data = randomBytes(shape.bytes);
    const spool: number[] = [];
    const files: number[] = [];
    // Warm-up, then alternate the two so machine load affects both alike.
    await spoolRound(shape, data);
    await filesRound(shape, data);
    for (let round = 0; round < ROUNDS; round++) {
      spool.push(await spoolRound(shape, data));
      files.push(await filesRound(shape, data));
    }
    const mibps = (t: number) =>
      ((shape.parts * shape.bytes) / 2 ** 20 / (t / 1000)).toFixed(0).padStart(5);
    process.stdout.write(
      `${shape.parts} parts x ${shape.bytes / 1024} KiB, ${shape.concurrency} at a time, ` +
        `${ROUNDS} rounds, medians\n` +
        `plain files (peer)     ${median(files).toFixed(0).padStart(6)} ms ${mibps(median(files))} MiB/s\n` +
        `MultipartSpool         ${median(spool).toFixed(0).padStart(6)} ms ${mibps(median(spool))} MiB/s\n` +
        `spool / plain files: ${(median(spool) / median(files)).toFixed(2)}x\n`,
    );
  }
}

void main();
