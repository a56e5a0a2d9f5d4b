import 'reflect-metadata';
import { S3Config } from '../../config/s3.config';
import { S3BackendSlowDownError } from '../s3-backend';
import { SpoolBudget } from './spool-budget';

const A = 'TapeA111111111111111111111111111111111111111';
const B = 'TapeB111111111111111111111111111111111111111';

function newBudget(maxSpoolBytes: number, share = 1) {
  return new SpoolBudget(
    Object.assign(new S3Config(), {
      max_spool_bytes: maxSpoolBytes,
      spool_share_per_tape: share,
    }),
  );
}

describe('SpoolBudget', () => {
  it('counts held bytes per tape and in all, and gives them back once per hold', () => {
    const budget = newBudget(1000);
    const a1 = budget.reserve(A, 300);
    const a2 = budget.reserve(A, 200);
    const b1 = budget.reserve(B, 100);
    expect([budget.tapeBytes(A), budget.tapeBytes(B), budget.totalBytes]).toEqual([500, 100, 600]);
    a1.release();
    a1.release(); // twice: counted once
    expect([budget.tapeBytes(A), budget.totalBytes]).toEqual([200, 300]);
    a2.release();
    b1.release();
    expect([budget.tapeBytes(A), budget.tapeBytes(B), budget.totalBytes]).toEqual([0, 0, 0]);
  });

  it('refuses a reservation past the gateway limit with SlowDown, whichever tape holds the rest', () => {
    const budget = newBudget(1000);
    budget.reserve(A, 900);
    expect(() => budget.reserve(B, 101)).toThrow(S3BackendSlowDownError);
    expect(budget.tapeBytes(B)).toBe(0);
    expect(budget.reserve(B, 100).bytes).toBe(100);
    expect(budget.totalBytes).toBe(1000);
  });

  it('always counts bytes already on disk, even past the limit (found at start-up)', () => {
    const budget = newBudget(1000);
    budget.hold(A, 1500);
    expect(budget.totalBytes).toBe(1500);
    expect(() => budget.reserve(A, 1)).toThrow(S3BackendSlowDownError);
  });

  it('refuses one tape past its share of the spool (SlowDown) while other tapes still write', () => {
    // Issue 34, finding 3: one tenant held the whole spool and every other tenant got 503s.
    const budget = newBudget(1000, 0.4);
    budget.reserve(A, 300);
    const held = budget.reserve(A, 100);
    expect(() => budget.reserve(A, 1)).toThrow(/spool_share_per_tape/);
    expect(() => budget.reserve(A, 1)).toThrow(S3BackendSlowDownError);
    expect(budget.reserve(B, 400).bytes).toBe(400);
    held.release();
    expect(budget.reserve(A, 100).bytes).toBe(100);
    expect([budget.tapeBytes(A), budget.tapeBytes(B)]).toEqual([400, 400]);
  });

  it('defaults to half of the spool per tape: one PutObject of max_object_bytes still fits', () => {
    const config = new S3Config();
    const budget = new SpoolBudget(config);
    expect(budget.tapeLimit).toBe(config.max_spool_bytes / 2);
    expect(budget.tapeLimit).toBeGreaterThanOrEqual(config.max_object_bytes);
  });
});
