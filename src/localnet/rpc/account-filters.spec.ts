import { StoredAccount } from '../ledger/ledger-store';
import { accountMatches, parseFilters } from './account-filters';

const withData = (data: number[]): StoredAccount => ({
  lamports: 1,
  owner: Buffer.alloc(32),
  executable: false,
  rentEpoch: 0n,
  data: Buffer.from(data),
});

describe('accountMatches (as the ledger scan matches in SQL)', () => {
  it('compares memcmp bytes at the offset, base58 or base64, and the exact dataSize', () => {
    const filters = parseFilters([
      { memcmp: { offset: 1, bytes: 'Ag==', encoding: 'base64' } },
      { memcmp: { offset: 0, bytes: '2' } }, // base58 of [1]
      { dataSize: 3 },
    ]);
    expect(accountMatches(withData([1, 2, 3]), filters)).toBe(true);
    expect(accountMatches(withData([1, 3, 3]), filters)).toBe(false);
    expect(accountMatches(withData([1, 2, 3, 4]), filters)).toBe(false);
  });

  it('fails a memcmp that runs past the data, passes an empty one, and passes no filters', () => {
    const past = parseFilters([{ memcmp: { offset: 2, bytes: 'Ag==', encoding: 'base64' } }]);
    expect(accountMatches(withData([1, 2]), past)).toBe(false);
    const empty = parseFilters([{ memcmp: { offset: 9, bytes: '' } }]);
    expect(accountMatches(withData([1]), empty)).toBe(true);
    expect(accountMatches(withData([]), [])).toBe(true);
  });
});
