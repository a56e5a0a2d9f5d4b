import { TransactionInstruction } from '@solana/web3.js';
import { LAMPORTS_PER_SIGNATURE } from './program-ids';
import { PackOptions, withComputeBudget } from './transaction-packer';

const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;

/**
 * The priority fee of one transaction: ceil(compute-unit price × compute-unit limit / 10^6)
 * lamports, the price in micro-lamports per unit (SetComputeUnitPrice) and the limit its
 * SetComputeUnitLimit. Nothing without a price.
 */
export function priorityFeeLamports(
  computeUnitPrice: number | bigint | undefined,
  computeUnitLimit: number,
): number {
  if (computeUnitPrice === undefined) return 0;
  const micro = BigInt(computeUnitPrice) * BigInt(computeUnitLimit);
  return Number((micro + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT);
}

/** Everything one transaction pays: 5,000 lamports per signature plus its priority fee. */
export function transactionFeeLamports(
  signatures: number,
  computeUnitPrice: number | bigint | undefined,
  computeUnitLimit: number,
): number {
  return (
    signatures * LAMPORTS_PER_SIGNATURE + priorityFeeLamports(computeUnitPrice, computeUnitLimit)
  );
}

/** What one transaction carrying `instructions` pays, as the writer would pack it. */
export function transactionFee(
  instructions: TransactionInstruction[],
  signatures: number,
  packing: PackOptions,
): number {
  const { computeUnitLimit } = withComputeBudget(instructions, packing);
  return transactionFeeLamports(signatures, packing.computeUnitPrice, computeUnitLimit);
}

/**
 * The priority fees of `transactions` transactions that carry `instructions` between them,
 * however they are packed, at most: every transaction's limit is the sum of its instructions'
 * estimates plus its compute-budget instructions', and each one rounds its fee up by less than
 * a lamport.
 */
export function priorityFeesAtMost(
  instructions: TransactionInstruction[],
  transactions: number,
  packing: PackOptions,
): number {
  if (packing.computeUnitPrice === undefined || transactions === 0) return 0;
  let units = transactions * withComputeBudget([], packing).computeUnitLimit;
  for (const ix of instructions) units += packing.computeUnits.estimate(ix);
  return priorityFeeLamports(packing.computeUnitPrice, units) + transactions;
}
