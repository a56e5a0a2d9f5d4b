import 'reflect-metadata';
import { S3Config } from '../../config/s3.config';
import { S3BackendSlowDownError } from '../s3-backend';
import { SpoolBudget } from './spool-budget';

const A = 'TapeA111111111111111111111111111111111111111';
const B = 'TapeB111111111111111111111111111111111111111';

function newBudget(maxSpoolBytes: number) {
  return new SpoolBudget(Object.assign(new S3Config(), { max_spool_bytes: maxSpoolBytes }));
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
});
