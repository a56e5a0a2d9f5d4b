import { Keypair } from '@solana/web3.js';
import { parseVersionOwner, versionOwner } from './version-owner';

describe('versionOwner', () => {
  const tape = Keypair.generate().publicKey;
  const root = Buffer.alloc(32, 0xab);

  it('names the tape and the root, and reads back', () => {
    const owner = versionOwner(tape, root);
    expect(owner).toBe(`version:${tape.toBase58()}:${'ab'.repeat(32)}`);
    expect(parseVersionOwner(owner)).toEqual({ tape: tape.toBase58(), root });
    expect(versionOwner(tape.toBase58(), root)).toBe(owner);
  });

  it('is never mistaken for an account address, nor a malformed owner for a version', () => {
    expect(parseVersionOwner(tape.toBase58())).toBeUndefined();
    const hex = 'ab'.repeat(32);
    for (const bad of [
      `version:${tape.toBase58()}:${hex.slice(2)}`,
      `version:${tape.toBase58()}:${hex.toUpperCase()}`,
      `version:${tape.toBase58()}:${hex}:x`,
      `version:not-a-key:${hex}`,
      `version:${tape.toBase58()}`,
    ]) {
      expect(parseVersionOwner(bad)).toBeUndefined();
    }
  });

  it('has no "|" (the Redis index splits its fields on it)', () => {
    expect(versionOwner(tape, root)).not.toContain('|');
  });
});
