import { Keypair } from '@solana/web3.js';
import { addressFromLabel, labelFromAddress, parseAddress } from './tape-label';

describe('tape labels', () => {
  it('round-trips random addresses through a 52-character lowercase DNS label', () => {
    for (let i = 0; i < 50; i++) {
      const address = Keypair.generate().publicKey.toBase58();
      const label = labelFromAddress(address);
      expect(label).toMatch(/^[a-z2-7]{52}$/);
      expect(addressFromLabel(label)).toBe(address);
    }
  });

  it('matches RFC 4648 base32 of the address bytes', () => {
    const key = Keypair.generate().publicKey;
    const rfc = Buffer.from(key.toBytes());
    // Independent oracle: encode bit by bit.
    const bits = [...rfc].map((b) => b.toString(2).padStart(8, '0')).join('') + '0000';
    const expected = bits
      .match(/.{5}/g)!
      .map((group) => 'abcdefghijklmnopqrstuvwxyz234567'[parseInt(group, 2)])
      .join('');
    expect(labelFromAddress(key)).toBe(expected);
  });

  it('refuses text that is not a label', () => {
    const label = labelFromAddress(Keypair.generate().publicKey);
    expect(addressFromLabel(label.toUpperCase())).toBeNull();
    expect(addressFromLabel(label.slice(1))).toBeNull();
    expect(addressFromLabel(label + 'a')).toBeNull();
    expect(addressFromLabel(label.slice(0, 51) + '1')).toBeNull();
    expect(addressFromLabel(label.slice(0, 51) + 'b')).toBeNull(); // non-zero trailing bits
    expect(addressFromLabel('')).toBeNull();
  });

  it('parses only canonical base58 addresses', () => {
    const address = Keypair.generate().publicKey.toBase58();
    expect(parseAddress(address)).toBe(address);
    expect(parseAddress(address + '1')).toBeNull();
    expect(parseAddress('0OIl' + address.slice(4))).toBeNull();
    expect(parseAddress('../../etc/passwd')).toBeNull();
    expect(parseAddress('')).toBeNull();
  });
});
