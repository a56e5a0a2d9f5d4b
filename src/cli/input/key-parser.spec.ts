import { parsePublicKey } from './key-parser';

describe('parsePublicKey', () => {
  it('reads a base58 key', () => {
    const key = 'Tape111111111111111111111111111111111111111';
    expect(parsePublicKey(` ${key} `, 'program id').toBase58()).toBe(key);
  });

  it('names what was expected', () => {
    expect(() => parsePublicKey('0xabc', 'program id')).toThrow(
      "bad program id '0xabc': expected a base58 public key",
    );
    expect(() => parsePublicKey('1'.repeat(45), 'mint')).toThrow(/bad mint/);
  });
});
