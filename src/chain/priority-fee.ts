import { LAMPORTS_PER_SIGNATURE } from './program-ids';

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
