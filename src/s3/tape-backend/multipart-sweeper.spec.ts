import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { S3Config } from '../../config/s3.config';
import { StorageConfig } from '../../config/storage.config';
import { EndedTapes } from './ended-tapes';
import { MultipartSpool } from './multipart-spool';
import { MultipartSweeper } from './multipart-sweeper';
import { SpoolBudget } from './spool-budget';

const EXPIRED = 'TapeE111111111111111111111111111111111111111';
const ACTIVE = 'TapeA111111111111111111111111111111111111111';

/** Ended tapes as a test sets them; `failing` makes the chain unreadable. */
class FakeEndedTapes extends EndedTapes {
  readonly ended = new Set<string>();
  failing = false;
  asked: string[][] = [];

  async among(tapes: string[]): Promise<string[]> {
    this.asked.push([...tapes].sort());
    if (this.failing) throw new Error('rpc down');
    return tapes.filter((t) => this.ended.has(t));
  }
}

async function newTestSweeper() {
  const s3 = new S3Config();
  const budget = new SpoolBudget(s3);
  const storage = Object.assign(new StorageConfig(), {
    data_dir: mkdtempSync(join(tmpdir(), 'tape-sweep-')),
  });
  const uploads = new MultipartSpool(storage, budget, s3);
  await uploads.onModuleInit();
  const tapes = new FakeEndedTapes();
  return { sut: new MultipartSweeper(uploads, tapes), uploads, budget, tapes };
}

async function uploadWithPart(
  uploads: MultipartSpool,
  budget: SpoolBudget,
  tapeAddress: string,
  bytes: number,
): Promise<void> {
  const upload = await uploads.create(
    { tapeAddress, key: 'k', contentType: undefined, metadata: {} },
    10,
  );
  await uploads.writePart(
    upload!,
    1,
    Readable.from([Buffer.alloc(bytes)]),
    budget.reserve(tapeAddress, bytes),
  );
}

describe('MultipartSweeper', () => {
  it('gives back the spool of a tape that expired at the next sweep, not upload_expiry_hours later', async () => {
    // Issue 34, finding 3: an expired tape's parts held the spool for 7 more days.
    const { sut, uploads, budget, tapes } = await newTestSweeper();
    await uploadWithPart(uploads, budget, EXPIRED, 700);
    await uploadWithPart(uploads, budget, ACTIVE, 100);
    await sut.sweep();
    expect(budget.totalBytes).toBe(800);
    tapes.ended.add(EXPIRED);
    await sut.sweep();
    expect(tapes.asked.at(-1)).toEqual([ACTIVE, EXPIRED]);
    expect([budget.tapeBytes(EXPIRED), budget.tapeBytes(ACTIVE)]).toEqual([0, 100]);
    expect([uploads.openUploads(EXPIRED), uploads.openUploads(ACTIVE)]).toEqual([0, 1]);
  });

  it('removes nothing for tapes while the chain cannot be read, and tries again next time', async () => {
    const { sut, uploads, budget, tapes } = await newTestSweeper();
    await uploadWithPart(uploads, budget, EXPIRED, 300);
    tapes.ended.add(EXPIRED);
    tapes.failing = true;
    await sut.sweep();
    expect(budget.totalBytes).toBe(300);
    tapes.failing = false;
    await sut.sweep();
    expect(budget.totalBytes).toBe(0);
  });

  it('also removes uploads past upload_expiry_hours and upload_idle_hours', async () => {
    const { sut, uploads, budget } = await newTestSweeper();
    await uploadWithPart(uploads, budget, ACTIVE, 100);
    await sut.sweep(Date.now() + new S3Config().upload_idle_hours * 3_600_000 + 60_000);
    expect([uploads.openUploads(ACTIVE), budget.totalBytes]).toEqual([0, 0]);
  });
});
