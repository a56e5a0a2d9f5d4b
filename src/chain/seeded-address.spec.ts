import { Keypair, PublicKey } from '@solana/web3.js';
import { addressWithSeed } from './seeded-address';
import { UPGRADEABLE_LOADER_ID } from './upgradeable-loader';

describe('addressWithSeed', () => {
  it('is the address web3.js derives for CreateAccountWithSeed', async () => {
    const base = Keypair.generate().publicKey;
    for (const seed of ['', 'tape-buffer', 'x'.repeat(32)]) {
      const expected = await PublicKey.createWithSeed(base, seed, UPGRADEABLE_LOADER_ID);
      expect(addressWithSeed(base, seed, UPGRADEABLE_LOADER_ID).equals(expected)).toBe(true);
    }
  });

  it('refuses a seed over 32 bytes, as the System program would', () => {
    expect(() => addressWithSeed(PublicKey.default, 'x'.repeat(33), UPGRADEABLE_LOADER_ID)).toThrow(
      'seed longer than 32 bytes',
    );
  });
});
