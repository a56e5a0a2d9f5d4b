import { RENT_EXEMPT_EPOCH } from '../transactions/rent';
import { encodeAccount } from './account-encoding';
import { ResponseBudget } from './response-budget';

const MiB = 1024 * 1024;

function account(size: number) {
  return {
    lamports: 1,
    owner: Buffer.alloc(32),
    executable: false,
    rentEpoch: RENT_EXEMPT_EPOCH,
    data: Buffer.alloc(size, 7),
  };
}

describe('encodeAccount with a response budget', () => {
  it('refuses a 10 MiB account past the budget before encoding any of it', () => {
    const big = account(10 * MiB);
    const toString = jest.spyOn(big.data, 'toString');
    expect(() =>
      encodeAccount(big, 'base64', undefined, undefined, new ResponseBudget(8 * MiB)),
    ).toThrow(/^response exceeds the limit of 8388608 bytes/);
    expect(toString).not.toHaveBeenCalled();
  });

  it('charges what base64 of the data (or its slice) will take', () => {
    const budget = new ResponseBudget(16 * MiB);
    encodeAccount(account(3 * MiB), 'base64', undefined, undefined, budget);
    expect(16 * MiB - budget.remaining).toBeGreaterThanOrEqual(4 * MiB);
    const sliced = new ResponseBudget(1024);
    encodeAccount(account(10 * MiB), 'base64', { offset: 0, length: 300 }, undefined, sliced);
    expect(sliced.remaining).toBeGreaterThan(0);
  });

  it('fits one 10 MiB account in the default 16 MiB response', () => {
    const value = encodeAccount(
      account(10 * MiB),
      'base64',
      undefined,
      undefined,
      new ResponseBudget(16 * MiB),
    );
    expect((value.data as string[])[0].length).toBe(4 * Math.ceil((10 * MiB) / 3));
  });
});
