import { Keypair } from '@solana/web3.js';
import { ComputeUnitEstimator } from './compute-units';
import { ResendingSenders } from './resending-senders';
import { LoaderComputeUnits } from './upgradeable-loader';

describe('ResendingSenders', () => {
  const programId = Keypair.generate().publicKey;

  it("estimates the loader's instructions for a deploy, the tape program's otherwise, at the price asked", () => {
    const sut = new ResendingSenders();
    const loader = sut.packing('loader', programId, 7);
    expect(loader.computeUnits).toBeInstanceOf(LoaderComputeUnits);
    expect(loader.computeUnitPrice).toBe(7);
    const tape = sut.packing('tape', programId);
    expect(tape.computeUnits).toBeInstanceOf(ComputeUnitEstimator);
    expect(tape.computeUnits).not.toBeInstanceOf(LoaderComputeUnits);
    expect(tape.computeUnitPrice).toBeUndefined();
  });
});
