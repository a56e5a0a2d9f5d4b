import {
  Commitment,
  Connection,
  Keypair,
  SendTransactionError,
  Transaction,
  TransactionInstruction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { randomInt } from 'node:crypto';
import { ChainError, toChainError } from './chain-error';
import { PackOptions, withComputeBudget, withLimitRaisedBy } from './transaction-packer';

/** The part of web3.js's Connection the sender uses (a test hands in a stand-in). */
export type SenderRpc = Pick<
  Connection,
  'getLatestBlockhash' | 'sendRawTransaction' | 'getSignatureStatuses' | 'getBlockHeight'
>;

/** One transaction to land: its instructions (the compute budget is added) and its signers, payer first. */
export interface TransactionJob {
  instructions: TransactionInstruction[];
  signers: Keypair[];
}

/** Units a job's compute-unit limit may be raised by to make it a transaction of its own. */
const UNIQUE_UNITS = 4096;
/** The last raise given: distinct within a process, from a random start across processes. */
let nextRaise = randomInt(UNIQUE_UNITS);

export interface ResendingSenderOptions {
  rpcUrl: string;
  /** Compute-unit limit and price of every transaction (`withComputeBudget`). */
  packing: PackOptions;
  commitment?: Commitment;
  /** Transactions handed to the RPC at once (default 16). */
  concurrency?: number;
  /** Rounds of sending: each round re-signs what is unconfirmed with a fresh blockhash (default 6). */
  maxRounds?: number;
  /** Between status polls (default 400 ms, a slot). */
  pollMs?: number;
}

const STATUS_BATCH = 256;
const LEVEL = { processed: 0, confirmed: 1, finalized: 2 } as const;

/**
 * Lands many independent transactions: sends them with a bounded number in flight, polls their
 * statuses in batches, and re-sends (re-signed with a fresh blockhash) every one not confirmed
 * once its blockhash has expired, so a dropped transaction costs a round, not the command. A
 * transaction that executed and failed ends it with that error. Meant for idempotent work
 * (buffer writes) and for single transactions whose expiry is checked before a re-send.
 */
export class ResendingSender {
  /**
   * Per job, the units its compute-unit limit is raised by, kept across its rounds. Separate
   * commands of the same instructions (`tape object rm a`, a deploy of a, the same rm again,
   * within one blockhash's life) would otherwise be one transaction: the node refuses the
   * second as already processed and its status says done while nothing happened. Raises are
   * distinct within a process and start at random, so two commands collide 1 time in
   * UNIQUE_UNITS; fees change only with a unit price (a few lamports).
   */
  private readonly raises = new WeakMap<TransactionJob, number>();

  private uniqueUnits(job: TransactionJob): number {
    let units = this.raises.get(job);
    if (units === undefined) {
      nextRaise = (nextRaise + 1) % UNIQUE_UNITS;
      units = nextRaise;
      this.raises.set(job, units);
    }
    return units;
  }

  private readonly commitment: Commitment;
  /** What counts as landed: the commitment, read as one of the three status levels. */
  private readonly level: keyof typeof LEVEL;

  constructor(
    private readonly rpc: SenderRpc,
    private readonly options: ResendingSenderOptions,
  ) {
    this.commitment = options.commitment ?? 'confirmed';
    this.level =
      this.commitment === 'finalized' || this.commitment === 'max'
        ? 'finalized'
        : this.commitment === 'processed' || this.commitment === 'recent'
          ? 'processed'
          : 'confirmed';
  }

  /** Resolves once every job is confirmed; `onConfirmed(index, signature)` as each one lands. */
  async sendAll(
    jobs: TransactionJob[],
    onConfirmed: (index: number, signature: string) => void = () => undefined,
  ): Promise<void> {
    const pending = new Set(jobs.map((_, i) => i));
    const maxRounds = this.options.maxRounds ?? 6;
    for (let round = 1; pending.size > 0; round++) {
      if (round > maxRounds) {
        throw new ChainError(
          'timeout',
          `${pending.size} of ${jobs.length} transactions not confirmed after ${maxRounds} attempts (${this.options.rpcUrl}); run the command again to finish`,
        );
      }
      const { blockhash, lastValidBlockHeight } = await this.call(() =>
        this.rpc.getLatestBlockhash(this.commitment),
      );
      await this.round(jobs, pending, round, blockhash, lastValidBlockHeight, onConfirmed);
    }
  }

  /**
   * One round: every pending job signed with this blockhash and handed to the RPC (a bounded
   * number at a time) while their statuses are polled, so confirmations come in as they land.
   * Ends when all are confirmed, or when the blockhash has expired and what is left can no
   * longer land (the next round re-signs it).
   */
  private async round(
    jobs: TransactionJob[],
    pending: Set<number>,
    round: number,
    blockhash: string,
    lastValidBlockHeight: number,
    onConfirmed: (index: number, signature: string) => void,
  ): Promise<void> {
    const inFlight = new Map<string, number>();
    const state = { sending: true, failed: false };
    const sends = this.bounded([...pending], async (index) => {
      if (state.failed) return;
      const tx = this.sign(jobs[index], blockhash, lastValidBlockHeight);
      const signature = bs58.encode(tx.signature!);
      if (await this.submit(tx, round)) inFlight.set(signature, index);
    }).finally(() => (state.sending = false));
    const polls = this.awaitStatuses(inFlight, lastValidBlockHeight, state, (index, signature) => {
      pending.delete(index);
      onConfirmed(index, signature);
    });
    try {
      await Promise.all([sends, polls]);
    } catch (err) {
      // Stop the other half before handing the error on; nothing keeps running behind it.
      state.failed = true;
      await Promise.allSettled([sends, polls]);
      throw err;
    }
  }

  private sign(job: TransactionJob, blockhash: string, lastValidBlockHeight: number): Transaction {
    const payer = job.signers[0];
    const { transactionInstructions } = withComputeBudget(job.instructions, this.options.packing);
    const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight });
    tx.add(...withLimitRaisedBy(transactionInstructions, this.uniqueUnits(job)));
    tx.sign(...job.signers);
    return tx;
  }

  /**
   * Hands a transaction to the RPC. The first round simulates it first (preflight), so a
   * transaction that cannot succeed fails with its reason; later rounds skip that, since the
   * transaction may have landed unseen and its simulation would now fail for that reason alone.
   * False when the RPC did not take it (it stays pending for the next round).
   */
  private async submit(tx: Transaction, round: number): Promise<boolean> {
    try {
      await this.rpc.sendRawTransaction(tx.serialize(), {
        skipPreflight: round > 1,
        preflightCommitment: this.commitment,
        maxRetries: 0,
      });
      return true;
    } catch (err) {
      // The node has this very signature (sent twice within one blockhash): poll its status.
      if (/already been processed|AlreadyProcessed/.test((err as Error)?.message ?? ''))
        return true;
      const error = toChainError(err, this.options.rpcUrl);
      if (error.kind === 'unreachable' || error.kind === 'program') throw error;
      if (err instanceof SendTransactionError && !/blockhash not found/i.test(err.message)) {
        throw error;
      }
      return false;
    }
  }

  /**
   * Polls while transactions are being sent and until every signature is confirmed, or the
   * blockhash they carry can no longer land.
   */
  private async awaitStatuses(
    inFlight: Map<string, number>,
    lastValidBlockHeight: number,
    state: { sending: boolean; failed: boolean },
    confirmed: (index: number, signature: string) => void,
  ): Promise<void> {
    const pollMs = this.options.pollMs ?? 400;
    let expired = false;
    while ((state.sending || inFlight.size > 0) && !state.failed) {
      await new Promise((r) => setTimeout(r, pollMs));
      if (inFlight.size === 0) continue;
      // Read the height first: statuses read after an expired height are final for that round.
      const height = await this.call(() => this.rpc.getBlockHeight(this.commitment));
      expired = height > lastValidBlockHeight;
      await this.readStatuses(inFlight, confirmed);
      if (expired) return;
    }
  }

  private async readStatuses(
    inFlight: Map<string, number>,
    confirmed: (index: number, signature: string) => void,
  ): Promise<void> {
    const signatures = [...inFlight.keys()];
    for (let i = 0; i < signatures.length; i += STATUS_BATCH) {
      const batch = signatures.slice(i, i + STATUS_BATCH);
      const { value } = await this.call(() => this.rpc.getSignatureStatuses(batch));
      batch.forEach((signature, j) => {
        const status = value[j];
        if (!status) return;
        if (status.err) {
          throw toChainError(
            Object.assign(
              new Error(`transaction ${signature} failed: ${JSON.stringify(status.err)}`),
              {
                transactionError: status.err,
              },
            ),
            this.options.rpcUrl,
          );
        }
        if (LEVEL[status.confirmationStatus ?? 'processed'] >= LEVEL[this.level]) {
          confirmed(inFlight.get(signature)!, signature);
          inFlight.delete(signature);
        }
      });
    }
  }

  /** At most `concurrency` tasks at once; after a failure none starts, and the first error is thrown. */
  private async bounded(items: number[], task: (item: number) => Promise<void>): Promise<void> {
    let next = 0;
    let failure: { error: unknown } | undefined;
    const worker = async () => {
      while (next < items.length && !failure) {
        try {
          await task(items[next++]);
        } catch (error) {
          failure ??= { error };
        }
      }
    };
    const workers = Math.max(1, Math.min(this.options.concurrency ?? 16, items.length));
    await Promise.all(Array.from({ length: workers }, worker));
    if (failure) throw failure.error;
  }

  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw toChainError(err, this.options.rpcUrl);
    }
  }
}
