import {
  Commitment,
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  Transaction,
  TransactionExpiredBlockheightExceededError,
  TransactionInstruction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { ChainError, toChainError } from './chain-error';
import { ChainRpc } from './chain-rpc';
import { MAX_TRANSACTION_COMPUTE_UNITS } from './compute-units';
import {
  PackedTransaction,
  packInstructions,
  PackOptions,
  withLimitRaisedBy,
} from './transaction-packer';

export interface SendOptions {
  /** Transactions confirmed one after another (true) or several in flight at once (false). */
  ordered?: boolean;
  concurrency?: number;
  onConfirmed?: (instructionsDone: number, signature: string) => void;
}

export interface ChainWriterOptions {
  /** Tries per transaction, the first included (retries only where resending is safe). */
  attempts: number;
  /** Waits before the n-th retry (1-based). */
  backoffMs: (retry: number) => number;
  sleep: (ms: number) => Promise<void>;
}

const DEFAULT_OPTIONS: ChainWriterOptions = {
  attempts: 3,
  backoffMs: (retry) => 250 * 2 ** (retry - 1),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Where a try failed: what is known about whether the cluster has the transaction. */
type Stage = 'prepare' | 'send' | 'confirm';

class TryFailed extends Error {
  constructor(
    readonly stage: Stage,
    override readonly cause: unknown,
  ) {
    super('send failed');
  }
}

/**
 * Sends instructions: packs them into as few transactions as fit, each with its compute-unit
 * limit (and price, `chain.compute_unit_price`), signs, sends and waits for confirmation.
 *
 * A transaction is tried again, re-signed with a new blockhash, only when it cannot have
 * landed: its blockhash expired unconfirmed (and the signature is unknown to the cluster), the
 * node did not know the blockhash, or the request was refused before it was taken (rate limit,
 * 429). A program error or an answer that may have been lost is never resent, with one
 * exception: a transaction that ran out of its compute-unit limit (a PDA whose seed needs more
 * tries than compute-units.ts budgets) changed nothing but its fee, and is sent once more with
 * the 1.4 M maximum.
 */
export class ChainWriter {
  private readonly options: ChainWriterOptions;
  /** Writes sent so far: a write's retries may repeat its transaction, another write may not. */
  private writes = 0;
  /** Signatures sent lately, and the write that sent each (see `ownTransaction`). */
  private readonly recent = new Map<string, { write: number; at: number }>();

  constructor(
    private readonly rpc: ChainRpc,
    /** How `send` fills transactions: group instructions with these to have each group sent as one. */
    readonly packing: PackOptions,
    options: Partial<ChainWriterOptions> = {},
  ) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
  }

  /**
   * Signed by `signers` (the first is the fee payer), each transaction confirmed before the
   * promise resolves. Returns the signatures in order.
   */
  async send(
    instructions: TransactionInstruction[],
    signers: Keypair[],
    options: SendOptions = {},
  ): Promise<string[]> {
    if (instructions.length === 0) return [];
    let batches: PackedTransaction[];
    try {
      batches = packInstructions(instructions, signers[0].publicKey, this.packing);
    } catch (err) {
      throw new ChainError('transaction', (err as Error).message);
    }
    const signatures: string[] = new Array<string>(batches.length);
    let done = 0;
    const runOne = async (index: number) => {
      const batch = batches[index];
      const signature = await this.sendTransaction(batch.transactionInstructions, signers);
      signatures[index] = signature;
      done += batch.instructions.length;
      options.onConfirmed?.(done, signature);
    };
    if (options.ordered ?? true) {
      for (let i = 0; i < batches.length; i++) await runOne(i);
    } else {
      await runPool(batches.length, options.concurrency ?? 8, runOne);
    }
    return signatures;
  }

  private async sendTransaction(
    instructions: TransactionInstruction[],
    signers: Keypair[],
  ): Promise<string> {
    const used = signersOf(instructions, signers);
    const write = ++this.writes;
    let current = instructions;
    let raised = false;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.tryOnce(current, used, write);
      } catch (err) {
        const failure = err as TryFailed;
        if (!raised && failure.stage !== 'prepare' && ranOutOfComputeUnits(failure.cause)) {
          raised = true;
          current = withMaximumLimit(current);
          attempt--;
          continue;
        }
        if (attempt >= this.options.attempts || !(await this.safeToRetry(failure))) {
          throw toChainError(failure.cause, this.rpc.url);
        }
        await this.options.sleep(this.options.backoffMs(attempt));
      }
    }
  }

  private async tryOnce(instructions: TransactionInstruction[], signers: Keypair[], write: number) {
    const connection = this.rpc.connection;
    const commitment = this.rpc.commitment;
    let stage: Stage = 'prepare';
    try {
      const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash(commitment);
      const tx = this.ownTransaction(instructions, signers, write, {
        feePayer: signers[0].publicKey,
        blockhash,
        lastValidBlockHeight,
      });
      stage = 'send';
      const signature = await this.sendRaw(tx, commitment);
      stage = 'confirm';
      // Asked of the endpoint that is up now (the blockhash request may have failed over).
      const result = await this.rpc.connection.confirmTransaction(
        { signature, blockhash, lastValidBlockHeight },
        commitment,
      );
      if (result.value.err) {
        throw Object.assign(new Error(JSON.stringify(result.value.err)), {
          transactionError: result.value.err,
        });
      }
      return signature;
    } catch (err) {
      throw new TryFailed(stage, err);
    }
  }

  /**
   * Sends the signed transaction. A retry of this write under a blockhash the node still has
   * is the same transaction (one signature), and the node refuses it as already processed: that
   * transaction is ours and it was taken, so answered with its signature it is confirmed (and
   * its own outcome reported) like the first. Separate writes are never the same transaction
   * (`ownTransaction`).
   */
  private async sendRaw(tx: Transaction, commitment: Commitment | undefined): Promise<string> {
    try {
      return await this.rpc.connection.sendRawTransaction(tx.serialize(), {
        preflightCommitment: commitment,
      });
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      if (!ALREADY_PROCESSED.test(text) || !tx.signature) throw err;
      return bs58.encode(tx.signature);
    }
  }

  /**
   * Signs the write's transaction, made its own. The same instructions signed by the same keys
   * under the same blockhash are one transaction: a separate write of them (S3's PUT k,
   * DELETE k, PUT k within one blockhash's life) would be refused as already processed and taken
   * for done while nothing happened. When the signature is one another write of this writer sent
   * lately, the compute-unit limit goes up by one unit until it is not (fees unchanged without a
   * unit price; one unit's price each with one). A retry of the same write keeps its transaction,
   * so a resend of what landed is still recognised as ours.
   */
  private ownTransaction(
    instructions: TransactionInstruction[],
    signers: Keypair[],
    write: number,
    header: { feePayer: PublicKey; blockhash: string; lastValidBlockHeight: number },
  ): Transaction {
    const now = Date.now();
    for (const [signature, sent] of this.recent) {
      if (now - sent.at < RECENT_MS && this.recent.size <= RECENT_MAX) break;
      this.recent.delete(signature);
    }
    for (let raise = 0; ; raise++) {
      const tx = new Transaction(header);
      tx.add(...withLimitRaisedBy(instructions, raise));
      tx.sign(...signers);
      const signature = bs58.encode(tx.signature!);
      const sent = this.recent.get(signature);
      if (sent === undefined || sent.write === write) {
        this.recent.delete(signature);
        this.recent.set(signature, { write, at: now });
        return tx;
      }
    }
  }

  private async safeToRetry(failure: TryFailed): Promise<boolean> {
    const { stage, cause } = failure;
    const text = cause instanceof Error ? cause.message : String(cause);
    if (stage === 'confirm') {
      if (!(cause instanceof TransactionExpiredBlockheightExceededError)) return false;
      // Expired unconfirmed; a notification may still have been missed: ask for the signature.
      try {
        const { value } = await this.rpc.connection.getSignatureStatuses([cause.signature], {
          searchTransactionHistory: true,
        });
        return value[0] === null;
      } catch {
        return false;
      }
    }
    // Refused before it was taken; an unreachable node fails at once (the CLI says so).
    if (/\b429\b|Too Many Requests/i.test(text)) return true;
    return stage === 'send' && /Blockhash not found/i.test(text);
  }
}

/** The node's refusal of a transaction whose signature it has already taken. */
const ALREADY_PROCESSED = /already been processed|AlreadyProcessed/;

/** The transaction (preflight or landed) failed because its compute-unit limit ran out. */
function ranOutOfComputeUnits(cause: unknown): boolean {
  const error = (cause ?? {}) as { message?: unknown; transactionError?: unknown; logs?: unknown };
  const logs = Array.isArray(error.logs) ? (error.logs as unknown[]).map(String) : [];
  const text = [
    typeof error.message === 'string' ? error.message : '',
    JSON.stringify(error.transactionError ?? null),
    ...logs,
  ].join('\n');
  return /ComputationalBudgetExceeded|Computational budget exceeded|exceeded CUs meter/.test(text);
}

/** How long a sent signature is remembered: longer than a blockhash lives (~60-90 s). */
const RECENT_MS = 180_000;
/** Signatures remembered at most (the oldest go first). */
const RECENT_MAX = 100_000;

/** The same instructions with the limit raised to the most one transaction may request. */
function withMaximumLimit(instructions: TransactionInstruction[]): TransactionInstruction[] {
  const limit = ComputeBudgetProgram.setComputeUnitLimit({ units: MAX_TRANSACTION_COMPUTE_UNITS });
  const isLimit = (ix: TransactionInstruction) =>
    ix.programId.equals(ComputeBudgetProgram.programId) && ix.data[0] === limit.data[0];
  return instructions.some(isLimit)
    ? instructions.map((ix) => (isLimit(ix) ? limit : ix))
    : [limit, ...instructions];
}

/** The fee payer and whoever the instructions need: a transaction carries no extra signature. */
function signersOf(instructions: TransactionInstruction[], signers: Keypair[]): Keypair[] {
  const needed = new Set<string>([signers[0].publicKey.toBase58()]);
  for (const ix of instructions) {
    for (const k of ix.keys) if (k.isSigner) needed.add(k.pubkey.toBase58());
  }
  return signers.filter((s) => needed.has(s.publicKey.toBase58()));
}

async function runPool(count: number, concurrency: number, run: (i: number) => Promise<void>) {
  let next = 0;
  let failed = false;
  // After the first failure no new transaction starts; those in flight finish.
  const workers = Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count && !failed) {
      try {
        await run(next++);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  });
  await Promise.all(workers);
}
