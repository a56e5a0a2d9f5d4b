import {
  ComputeBudgetProgram,
  Keypair,
  SignatureStatus,
  SystemProgram,
  Transaction,
  TransactionError,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { ChainError } from './chain-error';
import { ComputeUnitEstimator } from './compute-units';
import { ResendingSender, TransactionJob } from './resending-sender';

/** What becomes of a transaction: it lands, it is lost, or it executes and fails with `failed`. */
type Fate = 'land' | 'drop' | { failed: TransactionError };

/**
 * A stand-in RPC: each `getBlockHeight` moves the chain one block on; a blockhash is valid for
 * two blocks. `fate` decides what happens to each transaction handed to it.
 */
class FakeRpc {
  height = 0;
  blockhashes = 0;
  readonly sent: {
    signature: string;
    skipPreflight: boolean;
    transfer: number;
    budget: number[];
    /** The SetComputeUnitLimit's units. */
    limit: number;
  }[] = [];
  private readonly statuses = new Map<string, SignatureStatus>();

  constructor(private readonly fate: (transfer: number, attempt: number) => Fate) {}

  async getLatestBlockhash() {
    this.blockhashes++;
    return {
      blockhash: Keypair.generate().publicKey.toBase58(),
      lastValidBlockHeight: this.height + 2,
    };
  }

  async sendRawTransaction(raw: Buffer, options: { skipPreflight?: boolean }) {
    const tx = Transaction.from(raw);
    const signature = bs58.encode(tx.signature!);
    // The transfer's lamports tell the jobs apart.
    const transfer = Number(tx.instructions.at(-1)!.data.readBigUInt64LE(4));
    const attempt = this.sent.filter((s) => s.transfer === transfer).length + 1;
    const budget = tx.instructions
      .filter((ix) => ix.programId.equals(ComputeBudgetProgram.programId))
      .map((ix) => ix.data[0]);
    const limit = tx.instructions
      .find((ix) => ix.programId.equals(ComputeBudgetProgram.programId) && ix.data[0] === 2)!
      .data.readUInt32LE(1);
    this.sent.push({
      signature,
      skipPreflight: options.skipPreflight === true,
      transfer,
      budget,
      limit,
    });
    const fate = this.fate(transfer, attempt);
    if (fate !== 'drop') {
      this.statuses.set(signature, {
        slot: this.height,
        confirmations: 0,
        err: fate === 'land' ? null : fate.failed,
        confirmationStatus: 'confirmed',
      });
    }
    return signature;
  }

  async getSignatureStatuses(signatures: string[]) {
    return {
      context: { slot: this.height },
      value: signatures.map((s) => this.statuses.get(s) ?? null),
    };
  }

  async getBlockHeight() {
    return ++this.height;
  }
}

const payer = Keypair.generate();
const jobs = (count: number): TransactionJob[] =>
  Array.from({ length: count }, (_, i) => ({
    instructions: [
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: i + 1,
      }),
    ],
    signers: [payer],
  }));

function newSender(fate: ConstructorParameters<typeof FakeRpc>[0], maxRounds = 4) {
  const rpc = new FakeRpc(fate);
  const sut = new ResendingSender(rpc, {
    rpcUrl: 'http://rpc.test',
    packing: {
      computeUnits: new ComputeUnitEstimator(Keypair.generate().publicKey),
      computeUnitPrice: 5,
    },
    concurrency: 3,
    maxRounds,
    pollMs: 1,
  });
  return { sut, rpc };
}

describe('ResendingSender', () => {
  it('sends every job once when all land, preflight on, each with its compute budget', async () => {
    const { sut, rpc } = newSender(() => 'land');
    const confirmed: number[] = [];
    await sut.sendAll(jobs(10), (i) => confirmed.push(i));
    expect(confirmed.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(rpc.sent).toHaveLength(10);
    expect(rpc.sent.every((s) => !s.skipPreflight)).toBe(true);
    // SetComputeUnitLimit (2) and SetComputeUnitPrice (3) on every transaction.
    expect(rpc.sent.every((s) => s.budget.join() === '2,3')).toBe(true);
    expect(rpc.blockhashes).toBe(1);
  });

  it('re-signs and re-sends only what was dropped, once its blockhash expired', async () => {
    const { sut, rpc } = newSender((transfer, attempt) =>
      transfer % 3 === 0 && attempt === 1 ? 'drop' : 'land',
    );
    const confirmed = new Set<number>();
    await sut.sendAll(jobs(9), (i) => confirmed.add(i));
    expect(confirmed.size).toBe(9);
    const resent = rpc.sent.slice(9);
    expect(resent.map((s) => s.transfer).sort()).toEqual([3, 6, 9]);
    // A new blockhash, so a new signature; no preflight (the first may have landed unseen).
    expect(resent.every((s) => s.skipPreflight)).toBe(true);
    expect(new Set(rpc.sent.map((s) => s.signature)).size).toBe(12);
    expect(rpc.blockhashes).toBe(2);
  });

  it('makes separate sends of the same instructions separate transactions; one job keeps its own across rounds', async () => {
    // `tape object rm a`, a deploy of a, the same rm within one blockhash: the second rm must
    // not be the first's transaction again (already processed, and its status says done).
    const { sut, rpc } = newSender(() => (rpc.sent.length === 3 ? 'drop' : 'land'));
    await sut.sendAll(jobs(1), () => undefined);
    await sut.sendAll(jobs(1), () => undefined);
    expect(rpc.sent[1].limit).not.toBe(rpc.sent[0].limit);
    expect(rpc.sent[1].transfer).toBe(rpc.sent[0].transfer);
    // A third send, dropped once: its retry is the same write, with the same limit.
    await sut.sendAll(jobs(1), () => undefined);
    expect(rpc.sent).toHaveLength(4);
    expect(rpc.sent[3].limit).toBe(rpc.sent[2].limit);
  });

  it('ends with the error of a transaction that executed and failed', async () => {
    const { sut } = newSender((transfer) =>
      transfer === 2 ? { failed: { InstructionError: [1, { Custom: 6000 }] } } : 'land',
    );
    await expect(sut.sendAll(jobs(4))).rejects.toThrow(
      new ChainError('program', 'insufficient capacity'),
    );
  });

  it('gives up after its rounds, saying how many are unconfirmed', async () => {
    const { sut, rpc } = newSender((transfer) => (transfer === 1 ? 'drop' : 'land'), 3);
    await expect(sut.sendAll(jobs(5))).rejects.toThrow(
      '1 of 5 transactions not confirmed after 3 attempts (http://rpc.test); run the command again to finish',
    );
    expect(rpc.sent.filter((s) => s.transfer === 1)).toHaveLength(3);
  });
});
