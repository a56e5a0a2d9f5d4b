import { ComputeBudgetProgram, Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { transactionFee } from './transaction-fee';

function message(...extra: Parameters<Transaction['add']>) {
  const payer = Keypair.generate().publicKey;
  const tx = new Transaction({ feePayer: payer, recentBlockhash: payer.toBase58() }).add(
    SystemProgram.transfer({
      fromPubkey: payer,
      toPubkey: Keypair.generate().publicKey,
      lamports: 1,
    }),
    ...extra,
  );
  const compiled = tx.compileMessage();
  return {
    header: compiled.header,
    accountKeys: compiled.accountKeys,
    instructions: compiled.instructions.map((ix) => ({
      programIdIndex: ix.programIdIndex,
      data: Buffer.from(bs58.decode(ix.data)),
    })),
  };
}

describe('transactionFee', () => {
  it('charges 5,000 lamports per signature without a compute-unit price', () => {
    expect(transactionFee(message())).toBe(5000);
    expect(
      transactionFee(message(ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 }))),
    ).toBe(5000);
  });

  it('adds ceil(price x limit / 10^6) lamports when a price is set', () => {
    const fee = transactionFee(
      message(
        ComputeBudgetProgram.setComputeUnitLimit({ units: 300_001 }),
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 3 }),
      ),
    );
    expect(fee).toBe(5000 + Math.ceil((300_001 * 3) / 1_000_000));
  });

  it('prices the default limit (200,000 per other instruction) when no limit is set', () => {
    const fee = transactionFee(
      message(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000 })),
    );
    expect(fee).toBe(5000 + 200_000);
  });

  it('caps the limit at 1.4 M compute units', () => {
    const fee = transactionFee(
      message(
        ComputeBudgetProgram.setComputeUnitLimit({ units: 4_000_000 }),
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000 }),
      ),
    );
    expect(fee).toBe(5000 + 1_400_000);
  });
});
