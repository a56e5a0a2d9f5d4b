import { Keypair, PublicKey } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { createProgramAddress, ProgramAddressDeriver } from './program-address';

function reference(seeds: Uint8Array[], programId: PublicKey): string | null {
  try {
    return PublicKey.createProgramAddressSync(seeds, programId).toBuffer().toString('base64');
  } catch {
    return null;
  }
}

describe('createProgramAddress', () => {
  const programId = Keypair.generate().publicKey;

  it('answers as web3.js does, on-curve hashes included', () => {
    let refused = 0;
    for (let i = 0; i < 400; i++) {
      const seeds = [Buffer.from('name'), randomBytes(32), Buffer.from([i % 256])];
      const ours = createProgramAddress(seeds, programId);
      expect(ours).toBe(reference(seeds, programId));
      if (ours === null) refused++;
    }
    // About half of all hashes are curve points: both outcomes were exercised.
    expect(refused).toBeGreaterThan(100);
    expect(refused).toBeLessThan(300);
  });

  it('refuses seeds over 32 bytes and more than 16 seeds', () => {
    expect(createProgramAddress([Buffer.alloc(33)], programId)).toBeNull();
    expect(
      createProgramAddress(
        Array.from({ length: 17 }, () => Buffer.alloc(1)),
        programId,
      ),
    ).toBeNull();
  });

  it('derives the address findProgramAddressSync finds, and remembers it', () => {
    const seeds = [Buffer.from('tape'), Keypair.generate().publicKey.toBuffer()];
    const [address, bump] = PublicKey.findProgramAddressSync(seeds, programId);
    const deriver = new ProgramAddressDeriver();
    const withBump = [...seeds, Buffer.from([bump])];
    expect(deriver.derive(withBump, programId)).toBe(address.toBuffer().toString('base64'));
    expect(deriver.derive(withBump, programId)).toBe(address.toBuffer().toString('base64'));
  });
});
