import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMPUTE_UNITS, derivationTries } from '../../src/chain/compute-units';
import { Tag } from '../../src/chain/tape-instruction-data';
import { KindSummary } from './differential-tally';

/** What the differential test measured (RECORD_CU=1 rewrites it). */
const measured = JSON.parse(readFileSync(join(__dirname, 'compute-units.json'), 'utf8')) as Record<
  string,
  KindSummary
>;

/**
 * The client's compute-unit budgets (src/chain/compute-units.ts) against what program/tape.so
 * used: for each kind, the successful instruction of the differential test with the least
 * headroom must fit the budget the client would request for it today. The differential test
 * itself checks every successful instruction the same way.
 */
describe('compute-unit budgets against the units program/tape.so used', () => {
  const kinds = Object.values(Tag).filter((t): t is string => typeof t === 'string');

  it.each(kinds)('%s', (kind) => {
    const tightest = measured[kind]?.tightest;
    expect(tightest).toBeDefined();
    const tag = Tag[kind as keyof typeof Tag];
    const perByte = COMPUTE_UNITS.tapePerDataByte[tag] ?? 0;
    const budget = COMPUTE_UNITS.tape[tag] + perByte * tightest!.dataBytes;
    expect(tightest!.units).toBeLessThanOrEqual(budget);
  });

  it('budgets the derivations of one PDA past what one seed in 256 needs', () => {
    // SetDelegate derives one PDA; a tape of the differential test needed 9 tries.
    expect(derivationTries(1)).toBe(10);
    expect(derivationTries(2)).toBe(16);
    expect(derivationTries(6)).toBe(48);
  });
});
