import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { createHash } from 'node:crypto';
import { TrackKind } from './account-layouts';
import { TapeInstructions } from './tape-instructions';
import { PACKET_DATA_SIZE, packInstructions, transactionSize } from './transaction-packer';

const ix = new TapeInstructions(new PublicKey('Tape111111111111111111111111111111111111111'));
const payer = Keypair.generate();
const authority = Keypair.generate();
const tape = ix.pdas.tape(authority.publicKey);

function setName(i: number, nameLength = 20) {
  const commitment = createHash('sha256').update(String(i)).digest();
  return ix.setName({
    payer: payer.publicKey,
    signer: authority.publicKey,
    tape,
    name: `${i}`.padStart(nameLength, 'x'),
    track: ix.pdas.track(tape, commitment),
    contentType: 'text/html; charset=utf-8',
  });
}

describe('packInstructions', () => {
  it('fills transactions up to the 1232-byte limit, in order, and the sizes are exact', () => {
    const instructions = Array.from({ length: 40 }, (_, i) => setName(i));
    const batches = packInstructions(instructions, payer.publicKey);
    expect(batches.flat()).toEqual(instructions);
    expect(batches.length).toBeGreaterThan(1);
    for (const [i, batch] of batches.entries()) {
      const size = transactionSize(batch, payer.publicKey);
      expect(size).toBeLessThanOrEqual(PACKET_DATA_SIZE);
      // The real serialized transaction has exactly the computed size.
      const tx = new Transaction({
        feePayer: payer.publicKey,
        blockhash: PublicKey.default.toBase58(),
        lastValidBlockHeight: 0,
      });
      tx.add(...batch);
      tx.sign(payer, authority);
      expect(tx.serialize().length).toBe(size);
      // Full: the next instruction would not have fit.
      if (i < batches.length - 1) {
        expect(transactionSize([...batch, batches[i + 1][0]], payer.publicKey)).toBeGreaterThan(
          PACKET_DATA_SIZE,
        );
      }
    }
  });

  it('refuses an instruction that cannot fit any transaction', () => {
    const huge = ix.writeTrack({
      payer: payer.publicKey,
      signer: authority.publicKey,
      tape,
      commitment: Buffer.alloc(32),
      size: 1,
      kind: TrackKind.Blob,
      contentType: 'x'.repeat(255),
    });
    const name = setName(1, 1024);
    expect(() => packInstructions([huge, name], payer.publicKey)).toThrow(/1232-byte/);
  });
});
