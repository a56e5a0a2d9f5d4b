import {
  TransactionInstruction,
  ComputeBudgetInstruction,
  ComputeBudgetProgram,
  Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionExpiredBlockheightExceededError,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { ChainError } from './chain-error';
import { ChainRpc } from './chain-rpc';
import { ChainWriter } from './chain-writer';
import { ComputeUnitEstimator } from './compute-units';
import { TapeInstructions } from './tape-instructions';

const programId = new PublicKey('Tape111111111111111111111111111111111111111');
const ix = new TapeInstructions(programId);
const payer = Keypair.generate();
const authority = Keypair.generate();
const tape = ix.pdas.tape(authority.publicKey);

type Outcome =
  | 'ok'
  | 'expired'
  | 'expired-but-landed'
  | 'program-error'
  | 'blockhash-unknown'
  | 'already-processed'
  | 'out-of-compute'
  | 'preflight-out-of-compute';

/** A cluster that takes transactions and answers each with the next outcome ('ok' when none). */
function newTestWriter(computeUnitPrice?: number, options: { oneBlockhash?: boolean } = {}) {
  const outcomes: Outcome[] = [];
  const sent: Transaction[] = [];
  const waits: number[] = [];
  let blockhashes = 0;
  const connection = {
    getLatestBlockhash: async () => {
      if (!options.oneBlockhash || blockhashes === 0) blockhashes++;
      return {
        blockhash: bs58.encode(Buffer.alloc(32, blockhashes)),
        lastValidBlockHeight: 100 + blockhashes,
      };
    },
    sendRawTransaction: async (wire: Buffer) => {
      const tx = Transaction.from(wire);
      if (outcomes[0] === 'preflight-out-of-compute') {
        outcomes.shift();
        throw new Error(
          'failed to send transaction: Transaction simulation failed: Error processing Instruction 1: ComputationalBudgetExceeded',
        );
      }
      if (outcomes[0] === 'already-processed') {
        outcomes.shift();
        throw new Error(
          'failed to send transaction: Transaction simulation failed: This transaction has already been processed',
        );
      }
      if (outcomes[0] === 'blockhash-unknown') {
        outcomes.shift();
        throw new Error(
          'failed to send transaction: Transaction simulation failed: Blockhash not found',
        );
      }
      sent.push(tx);
      return bs58.encode(tx.signature!);
    },
    confirmTransaction: async ({ signature }: { signature: string }) => {
      const outcome = outcomes.shift() ?? 'ok';
      if (outcome === 'expired' || outcome === 'expired-but-landed') {
        if (outcome === 'expired-but-landed') landed.add(signature);
        throw new TransactionExpiredBlockheightExceededError(signature);
      }
      const errors: Partial<Record<Outcome, unknown>> = {
        'program-error': { InstructionError: [1, { Custom: 6001 }] },
        'out-of-compute': { InstructionError: [1, 'ComputationalBudgetExceeded'] },
      };
      return { value: { err: errors[outcome] ?? null } };
    },
    getSignatureStatuses: async (signatures: string[]) => ({
      value: signatures.map((s) => (landed.has(s) ? { confirmationStatus: 'confirmed' } : null)),
    }),
  } as unknown as Connection;
  const landed = new Set<string>();
  const rpc = new ChainRpc(connection, 'http://rpc.test', 'confirmed');
  const sut = new ChainWriter(
    rpc,
    { computeUnits: new ComputeUnitEstimator(programId), computeUnitPrice },
    { sleep: async (ms) => void waits.push(ms) },
  );
  return { sut, outcomes, sent, waits };
}

function extendTape(epochs = 1) {
  return ix.extendTape({
    payer: payer.publicKey,
    tape,
    mint: Keypair.generate().publicKey,
    treasury: Keypair.generate().publicKey,
    epochs,
  });
}

describe('ChainWriter', () => {
  it('sends each transaction with its compute-unit limit, signed by whom it needs', async () => {
    const { sut, sent } = newTestWriter();
    const transfer = SystemProgram.transfer({
      fromPubkey: payer.publicKey,
      toPubkey: Keypair.generate().publicKey,
      lamports: 1,
    });
    const signatures = await sut.send([extendTape(), transfer], [payer, authority]);
    expect(signatures).toHaveLength(1);
    const [tx] = sent;
    expect(tx.signatures.map((s) => s.publicKey.toBase58())).toEqual([payer.publicKey.toBase58()]);
    expect(tx.verifySignatures()).toBe(true);
    expect(tx.instructions[0].programId.equals(ComputeBudgetProgram.programId)).toBe(true);
    expect(ComputeBudgetInstruction.decodeSetComputeUnitLimit(tx.instructions[0]).units).toBe(
      sut.packing.computeUnits.estimate(tx.instructions[0]) +
        sut.packing.computeUnits.estimate(tx.instructions[1]) +
        sut.packing.computeUnits.estimate(tx.instructions[2]),
    );
    expect(tx.instructions).toHaveLength(3);
  });

  it('makes two separate writes of the same instructions two transactions, even under one blockhash', async () => {
    // S3's PUT k, DELETE k, PUT k: the second PUT must not be the first's transaction again
    // (the node would refuse it as already processed and nothing would happen).
    const { sut, sent } = newTestWriter(undefined, { oneBlockhash: true });
    const same = extendTape(1);
    const signatures = [
      ...(await sut.send([same], [payer])),
      ...(await sut.send([same], [payer])),
      ...(await sut.send([same], [payer])),
    ];
    expect(new Set(signatures).size).toBe(3);
    expect(new Set(sent.map((tx) => tx.recentBlockhash)).size).toBe(1);
    // They differ in the compute-unit limit alone, one unit each: fees stay as estimated.
    const limit = (i: number) =>
      ComputeBudgetInstruction.decodeSetComputeUnitLimit(sent[i].instructions[0]).units;
    expect([limit(1) - limit(0), limit(2) - limit(0)]).toEqual([1, 2]);
    expect(sent[0].instructions.slice(1)).toEqual(sent[2].instructions.slice(1));
  });

  it('adds the configured compute-unit price to every transaction', async () => {
    const { sut, sent } = newTestWriter(25_000);
    await sut.send([extendTape()], [payer]);
    const price = sent[0].instructions.find(
      (i) =>
        i.programId.equals(ComputeBudgetProgram.programId) &&
        ComputeBudgetInstruction.decodeInstructionType(i) === 'SetComputeUnitPrice',
    );
    expect(ComputeBudgetInstruction.decodeSetComputeUnitPrice(price!).microLamports).toBe(25_000n);
  });

  it('packs many instructions into few transactions and reports progress in order', async () => {
    const { sut, sent } = newTestWriter();
    const instructions = Array.from({ length: 200 }, (_, i) => extendTape(i + 1));
    const progress: number[] = [];
    const signatures = await sut.send(instructions, [payer], {
      onConfirmed: (done) => progress.push(done),
    });
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.length).toBeLessThan(200);
    expect(signatures).toHaveLength(sent.length);
    expect(progress[progress.length - 1]).toBe(200);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
  });

  it('re-signs with a new blockhash when a transaction expired without landing', async () => {
    const { sut, outcomes, sent, waits } = newTestWriter();
    outcomes.push('expired');
    const [signature] = await sut.send([extendTape()], [payer]);
    expect(sent).toHaveLength(2);
    expect(sent[0].recentBlockhash).not.toBe(sent[1].recentBlockhash);
    expect(signature).toBe(bs58.encode(sent[1].signature!));
    expect(waits).toEqual([250]);
  });

  it('tries again when the node did not know the blockhash', async () => {
    const { sut, outcomes, sent } = newTestWriter();
    outcomes.push('blockhash-unknown');
    await sut.send([extendTape()], [payer]);
    expect(sent).toHaveLength(1);
  });

  it('confirms, instead of failing, a transaction the node has already taken (an identical write sent twice)', async () => {
    const { sut, outcomes, sent } = newTestWriter();
    const confirmed: string[] = [];
    outcomes.push('already-processed');
    const [signature] = await sut.send([extendTape()], [payer], {
      onConfirmed: (_done, s) => confirmed.push(s),
    });
    // Not sent again, not re-signed: the signature is the one the node already has.
    expect(sent).toHaveLength(0);
    expect(confirmed).toEqual([signature]);

    // Its own outcome counts: an identical transaction that failed fails the same way.
    const failed = newTestWriter();
    failed.outcomes.push('already-processed', 'program-error');
    await expect(failed.sut.send([extendTape()], [payer])).rejects.toMatchObject({
      kind: 'program',
    });
  });

  it('never resends a transaction that may have landed, nor a failed one', async () => {
    const landed = newTestWriter();
    landed.outcomes.push('expired-but-landed');
    await expect(landed.sut.send([extendTape()], [payer])).rejects.toMatchObject({
      kind: 'timeout',
    });
    expect(landed.sent).toHaveLength(1);

    const failed = newTestWriter();
    failed.outcomes.push('program-error');
    const error = await failed.sut.send([extendTape()], [payer]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainError);
    expect(error).toMatchObject({ kind: 'program', message: 'tape expired' });
    expect(failed.sent).toHaveLength(1);
  });

  it('sends once more with the 1.4 M maximum a transaction that ran out of its compute units', async () => {
    for (const outcome of ['out-of-compute', 'preflight-out-of-compute'] as const) {
      const { sut, outcomes, sent } = newTestWriter();
      outcomes.push(outcome);
      const [signature] = await sut.send([extendTape()], [payer]);
      const last = sent[sent.length - 1];
      expect(signature).toBe(bs58.encode(last.signature!));
      expect(ComputeBudgetInstruction.decodeSetComputeUnitLimit(last.instructions[0]).units).toBe(
        1_400_000,
      );
      expect(last.instructions.slice(1)).toEqual(sent[0].instructions.slice(1));
    }
    // Only once: a transaction that runs out at the maximum fails.
    const twice = newTestWriter();
    twice.outcomes.push('out-of-compute', 'out-of-compute');
    await expect(twice.sut.send([extendTape()], [payer])).rejects.toBeInstanceOf(ChainError);
    expect(twice.sent).toHaveLength(2);
  });

  it('gives up after three tries', async () => {
    const { sut, outcomes, sent, waits } = newTestWriter();
    outcomes.push('expired', 'expired', 'expired');
    await expect(sut.send([extendTape()], [payer])).rejects.toMatchObject({ kind: 'timeout' });
    expect(sent).toHaveLength(3);
    expect(waits).toEqual([250, 500]);
  });

  it('refuses an instruction that cannot fit a transaction before sending anything', async () => {
    const { sut, sent } = newTestWriter();
    const huge = new TransactionInstruction({
      programId: ix.programId,
      keys: [{ pubkey: tape, isSigner: false, isWritable: true }],
      data: Buffer.alloc(1_300),
    });
    await expect(sut.send([huge], [payer, authority])).rejects.toMatchObject({
      kind: 'transaction',
    });
    expect(sent).toHaveLength(0);
  });
});
