import { StoredAccount } from '../../ledger/ledger-store';
import { encodeAccount } from '../account-encoding';
import { toJsonText } from '../json-text';
import { AccountJson } from './account-json';

const account = (size: number): StoredAccount => ({
  lamports: 2_039_280,
  owner: Buffer.alloc(32, 9),
  executable: false,
  rentEpoch: 18446744073709551615n,
  data: Buffer.from(Array.from({ length: size }, (_, i) => i % 251)),
});

describe('AccountJson', () => {
  it.each([0, 1, 2, 3, 100, 70_000])(
    'writes the same JSON as the RPC answer for %i bytes of base64 data',
    (size) => {
      const a = account(size);
      const bytes = new AccountJson(a, 1024 * 1024, () => undefined).get('base64');
      expect(bytes?.toString()).toBe(toJsonText(encodeAccount(a, 'base64')));
    },
  );

  it('encodes once per encoding, sends binary as base58, and refuses base58 of large data', () => {
    const sut = new AccountJson(account(10), 1024 * 1024, () => undefined);
    expect(sut.get('base64')).toBe(sut.get('base64'));
    expect(sut.get('binary')?.toString()).toBe(toJsonText(encodeAccount(account(10), 'base58')));
    expect(new AccountJson(account(129), 1024 * 1024, () => undefined).get('base58')).toBeNull();
  });

  it('gives nothing for an account past the response limit, without an internal error', () => {
    const errors: unknown[] = [];
    const sut = new AccountJson(account(10_000), 4096, (_m, err) => errors.push(err));
    expect(sut.get('base64')).toBeNull();
    expect(errors).toEqual([]);
  });
});
