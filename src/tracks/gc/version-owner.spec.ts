import { Keypair } from '@solana/web3.js';
import { parseStagingOwner, parseVersionOwner, stagingOwner, versionOwner } from './version-owner';

describe('versionOwner', () => {
  const tape = Keypair.generate().publicKey;
  const root = Buffer.alloc(32, 0xab);
  const hex = 'ab'.repeat(32);

  it('names the tape, the version number and the root, and reads back', () => {
    const owner = versionOwner(tape, 7, root);
    expect(owner).toBe(`version:${tape.toBase58()}:7:${hex}`);
    expect(parseVersionOwner(owner)).toEqual({ tape: tape.toBase58(), version: 7, root });
    expect(versionOwner(tape.toBase58(), 7, root)).toBe(owner);
  });

  it('reads the owners recorded before they carried a number', () => {
    expect(parseVersionOwner(`version:${tape.toBase58()}:${hex}`)).toEqual({
      tape: tape.toBase58(),
      root,
    });
  });

  it('is never mistaken for an account address, nor a malformed owner for a version', () => {
    expect(parseVersionOwner(tape.toBase58())).toBeUndefined();
    for (const bad of [
      `version:${tape.toBase58()}:${hex.slice(2)}`,
      `version:${tape.toBase58()}:${hex.toUpperCase()}`,
      `version:${tape.toBase58()}:${hex}:x`,
      `version:${tape.toBase58()}:07:${hex}`,
      `version:${tape.toBase58()}:-1:${hex}`,
      `version:not-a-key:${hex}`,
      `version:${tape.toBase58()}`,
      stagingOwner(tape, 1),
    ]) {
      expect(parseVersionOwner(bad)).toBeUndefined();
    }
  });

  it('has no "|" (the Redis index splits its fields on it)', () => {
    expect(versionOwner(tape, 1, root)).not.toContain('|');
    expect(stagingOwner(tape, 1)).not.toContain('|');
  });
});

describe('stagingOwner', () => {
  const tape = Keypair.generate().publicKey;

  it('names the tape and the version the bytes were staged on, and reads back', () => {
    expect(stagingOwner(tape, 3)).toBe(`staged:${tape.toBase58()}:3`);
    expect(parseStagingOwner(stagingOwner(tape, 3))).toEqual({ tape: tape.toBase58(), version: 3 });
    expect(stagingOwner(tape, 1)).not.toBe(stagingOwner(tape, 2));
  });

  it('refuses anything else', () => {
    for (const bad of [
      tape.toBase58(),
      `staged:${tape.toBase58()}`,
      `staged:${tape.toBase58()}:1:2`,
      `staged:${tape.toBase58()}:x`,
      `staged:nope:1`,
      versionOwner(tape, 1, Buffer.alloc(32)),
    ]) {
      expect(parseStagingOwner(bad)).toBeUndefined();
    }
  });
});
