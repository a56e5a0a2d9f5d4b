import { Keypair, PublicKey } from '@solana/web3.js';
import { COMPUTE_UNITS, ComputeUnitEstimator } from './compute-units';
import {
  priorityFeeLamports,
  priorityFeesAtMost,
  transactionFee,
  transactionFeeLamports,
} from './priority-fee';
import { TapeInstructions } from './tape-instructions';
import { packInstructions } from './transaction-packer';

describe('priority fees', () => {
  it('is ceil(price x limit / 10^6) lamports, nothing without a price', () => {
    expect(priorityFeeLamports(undefined, 200_000)).toBe(0);
    expect(priorityFeeLamports(0, 200_000)).toBe(0);
    expect(priorityFeeLamports(1, 200_000)).toBe(1); // 0.2 lamports rounds up
    expect(priorityFeeLamports(10_000, 60_300)).toBe(603);
    expect(priorityFeeLamports(1_000_000, 1_400_000)).toBe(1_400_000);
    expect(priorityFeeLamports(3n, 333_334)).toBe(2); // 1.000002 -> 2
  });

  it('adds 5,000 lamports per signature', () => {
    expect(transactionFeeLamports(2, undefined, 60_300)).toBe(10_000);
    expect(transactionFeeLamports(2, 10_000, 60_300)).toBe(10_603);
  });

  const programId = new PublicKey('Tape111111111111111111111111111111111111111');
  const ix = new TapeInstructions(programId);
  const payer = Keypair.generate().publicKey;
  const packing = (price?: number) => ({
    computeUnits: new ComputeUnitEstimator(programId),
    computeUnitPrice: price,
  });

  it("prices one transaction from the packer's compute-unit limit", () => {
    const extend = ix.extendTape({
      payer,
      tape: Keypair.generate().publicKey,
      mint: Keypair.generate().publicKey,
      treasury: Keypair.generate().publicKey,
      epochs: 1,
    });
    // At a million micro-lamports a unit, a lamport per unit of the limit: ExtendTape's
    // estimate plus SetComputeUnitLimit's and SetComputeUnitPrice's.
    const limit = packing().computeUnits.estimate(extend) + 2 * COMPUTE_UNITS.computeBudget;
    expect(transactionFee([extend], 1, packing())).toBe(5000);
    expect(transactionFee([extend], 1, packing(1_000_000))).toBe(5000 + limit);
  });

  it('bounds the priority fees of packed transactions from above, within a lamport each', () => {
    const writes = Array.from({ length: 40 }, (_, i) =>
      ix.publish({
        signer: payer,
        storageAuthority: Keypair.generate().publicKey,
        tape: Keypair.generate().publicKey,
        expectedSequence: i,
        root: Buffer.alloc(32, i + 1),
        versionBytes: 10,
        keptBytes: 10,
      }),
    );
    for (const price of [1, 777, 1_000_000]) {
      const batches = packInstructions(writes, payer, packing(price));
      const exact = batches.reduce(
        (sum, b) => sum + priorityFeeLamports(price, b.computeUnitLimit),
        0,
      );
      const bound = priorityFeesAtMost(writes, batches.length, packing(price));
      expect(bound).toBeGreaterThanOrEqual(exact);
      expect(bound - exact).toBeLessThanOrEqual(2 * batches.length);
    }
    expect(priorityFeesAtMost(writes, 3, packing())).toBe(0);
  });
});
