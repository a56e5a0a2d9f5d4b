import { priorityFeeLamports, transactionFeeLamports } from './priority-fee';

describe('priority fees', () => {
  it('is ceil(price x limit / 10^6) lamports, nothing without a price', () => {
    expect(priorityFeeLamports(undefined, 200_000)).toBe(0);
    expect(priorityFeeLamports(0, 200_000)).toBe(0);
    expect(priorityFeeLamports(1, 200_000)).toBe(1); // 0.2 lamports rounds up
    expect(priorityFeeLamports(10_000, 60_300)).toBe(603);
    expect(priorityFeeLamports(1_000_000, 1_400_000)).toBe(1_400_000);
    expect(priorityFeeLamports(3n, 333_334)).toBe(2); // 1.000002 -> 2
  });

  it('adds 5,000 lamports per signature', () => {
    expect(transactionFeeLamports(2, undefined, 60_300)).toBe(10_000);
    expect(transactionFeeLamports(2, 10_000, 60_300)).toBe(10_603);
  });
});
