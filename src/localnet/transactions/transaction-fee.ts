import { LAMPORTS_PER_SIGNATURE } from '../../chain/program-ids';
import { PublicKey } from '@solana/web3.js';

const COMPUTE_BUDGET_PROGRAM_ID = new PublicKey('ComputeBudget111111111111111111111111111111');
const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;
/** Solana's default limit per instruction when none is requested, and the cap. */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
const MAX_UNITS = 1_400_000;
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;

/**
 * What a transaction pays: 5,000 lamports per signature plus its priority fee,
 * ceil(compute-unit price x compute-unit limit / 10^6) lamports (Compute Budget program).
 */
export function transactionFee(message: FeeMessage): number {
  let limit: number | null = null;
  let price = 0n;
  let others = 0;
  for (const ix of message.instructions) {
    // Compared as keys, not base58 strings: this runs for every transaction.
    if (!message.accountKeys[ix.programIdIndex]?.equals(COMPUTE_BUDGET_PROGRAM_ID)) {
      others++;
      continue;
    }
    const data = Buffer.from(ix.data);
    if (data[0] === SET_COMPUTE_UNIT_LIMIT && data.length >= 5) limit = data.readUInt32LE(1);
    if (data[0] === SET_COMPUTE_UNIT_PRICE && data.length >= 9) price = data.readBigUInt64LE(1);
  }
  const units = BigInt(Math.min(limit ?? others * DEFAULT_UNITS_PER_INSTRUCTION, MAX_UNITS));
  const priority = (price * units + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT;
  return signatureFee(message.header.numRequiredSignatures) + Number(priority);
}

/** What the fee depends on (a sanitized transaction or a compiled message). */
export interface FeeMessage {
  header: { numRequiredSignatures: number };
  accountKeys: PublicKey[];
  instructions: Array<{ programIdIndex: number; data: Uint8Array }>;
}

export function signatureFee(signatures: number): number {
  return signatures * LAMPORTS_PER_SIGNATURE;
}
