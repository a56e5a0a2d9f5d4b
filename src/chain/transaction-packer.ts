import { PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';

/** Solana's limit on a serialized transaction. */
export const PACKET_DATA_SIZE = 1232;

/**
 * Splits instructions into as few transactions as Solana's 1232-byte limit allows, keeping
 * their order. Each transaction's size is computed exactly from its compiled message.
 */
export function packInstructions(
  instructions: TransactionInstruction[],
  feePayer: PublicKey,
  maxInstructions = 64,
): TransactionInstruction[][] {
  const batches: TransactionInstruction[][] = [];
  let current: TransactionInstruction[] = [];
  for (const ix of instructions) {
    const candidate = [...current, ix];
    if (
      current.length < maxInstructions &&
      transactionSize(candidate, feePayer) <= PACKET_DATA_SIZE
    ) {
      current = candidate;
      continue;
    }
    if (current.length === 0) {
      throw new RangeError(
        `one instruction is over the ${PACKET_DATA_SIZE}-byte transaction limit`,
      );
    }
    batches.push(current);
    current = [ix];
    if (transactionSize(current, feePayer) > PACKET_DATA_SIZE) {
      throw new RangeError(
        `one instruction is over the ${PACKET_DATA_SIZE}-byte transaction limit`,
      );
    }
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Serialized size (or anything over the limit when it does not fit): compact-u16 signature count, 64 bytes per signature, the message. */
export function transactionSize(
  instructions: TransactionInstruction[],
  feePayer: PublicKey,
): number {
  const tx = new Transaction({
    feePayer,
    blockhash: PublicKey.default.toBase58(),
    lastValidBlockHeight: 0,
  });
  tx.add(...instructions);
  const message = tx.compileMessage();
  const signatures = message.header.numRequiredSignatures;
  let messageBytes: number;
  try {
    messageBytes = message.serialize().length;
  } catch {
    // web3.js serializes into a 1232-byte buffer and throws past it.
    return PACKET_DATA_SIZE + 1;
  }
  return shortVecLength(signatures) + signatures * 64 + messageBytes;
}

function shortVecLength(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : 3;
}
