import { Keypair, TransactionInstruction } from '@solana/web3.js';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../chain/program-ids';
import { ComputeUnitEstimator } from '../../chain/compute-units';
import { packInstructions } from '../../chain/transaction-packer';
import { InstructionStream } from './instruction-stream';

const payer = Keypair.generate().publicKey;
const packing = { computeUnits: new ComputeUnitEstimator(DEFAULT_TAPE_PROGRAM_ID) };
const ix = (bytes: number) =>
  new TransactionInstruction({
    programId: DEFAULT_TAPE_PROGRAM_ID,
    keys: [{ pubkey: Keypair.generate().publicKey, isSigner: false, isWritable: true }],
    data: Buffer.alloc(bytes),
  });

describe('InstructionStream', () => {
  it('sends full transactions at once and the rest on close, in order, each fitting the limit', async () => {
    const sent: TransactionInstruction[][] = [];
    const stream = new InstructionStream(async (b) => void sent.push(b), payer, packing, 4, 10_000);
    const all = Array.from({ length: 40 }, () => ix(100));
    all.forEach((i) => stream.push(i));
    await new Promise((r) => setImmediate(r));
    // Full transactions left without waiting for the linger timer.
    expect(sent.length).toBeGreaterThan(0);
    await stream.close();
    expect(sent.flat()).toEqual(all);
    for (const batch of sent) expect(packInstructions(batch, payer, packing)).toHaveLength(1);
  });

  it('sends a partial transaction after the linger time', async () => {
    const sent: TransactionInstruction[][] = [];
    const stream = new InstructionStream(async (b) => void sent.push(b), payer, packing, 4, 20);
    stream.push(ix(10));
    stream.push(ix(10));
    expect(sent).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 60));
    expect(sent.map((b) => b.length)).toEqual([2]);
    await stream.close();
  });

  it('keeps at most `concurrency` transactions in flight and reports the first failure', async () => {
    let inFlight = 0;
    let max = 0;
    let calls = 0;
    const stream = new InstructionStream(
      async () => {
        calls++;
        inFlight++;
        max = Math.max(max, inFlight);
        await new Promise((r) => setTimeout(r, 10));
        inFlight--;
        if (calls === 3) throw new Error('boom');
      },
      payer,
      { ...packing, maxInstructions: 1 },
      2,
      1,
    );
    for (let i = 0; i < 10; i++) stream.push(ix(10));
    await expect(stream.close()).rejects.toThrow('boom');
    expect(max).toBeLessThanOrEqual(2);
    expect(stream.failed).toBe(true);
    expect(calls).toBeLessThan(10);
  });
});
