import { PublicKey, TransactionInstruction } from '@solana/web3.js';

/** A copy of `ix` with account `index` replaced or its flags changed. */
export function alter(
  ix: TransactionInstruction,
  index: number,
  change: { pubkey?: PublicKey; isSigner?: boolean; isWritable?: boolean },
): TransactionInstruction {
  const keys = ix.keys.map((k, i) => (i === index ? { ...k, ...change } : k));
  return new TransactionInstruction({ programId: ix.programId, keys, data: ix.data });
}

/** A copy of `ix` with other data (hostile input). */
export function withData(ix: TransactionInstruction, data: Buffer): TransactionInstruction {
  return new TransactionInstruction({ programId: ix.programId, keys: ix.keys, data });
}

/** A copy of `ix` with only its first `count` accounts. */
export function truncateAccounts(
  ix: TransactionInstruction,
  count: number,
): TransactionInstruction {
  return new TransactionInstruction({
    programId: ix.programId,
    keys: ix.keys.slice(0, count),
    data: ix.data,
  });
}
