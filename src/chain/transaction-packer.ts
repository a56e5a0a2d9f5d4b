import { PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';
import { PACKET_DATA_SIZE, packFast } from './transaction-budget';

export { PACKET_DATA_SIZE };

/**
 * Splits instructions into as few transactions as Solana's 1232-byte limit allows, keeping
 * their order; sizes are exact (TransactionBudget), in linear time.
 */
export function packInstructions(
  instructions: TransactionInstruction[],
  feePayer: PublicKey,
  maxInstructions = 64,
): TransactionInstruction[][] {
  return packFast(instructions, feePayer, maxInstructions);
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
