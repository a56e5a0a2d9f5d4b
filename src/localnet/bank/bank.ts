import bs58 from 'bs58';
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { AccountWrite, BlockRecord, LedgerStore } from '../ledger/ledger-store';
import { SanitizedTransaction } from '../transactions/sanitized-transaction';
import { Clock, ExecutionResult, TransactionExecutor } from './execution';
import { TransactionErrorJson } from '../transactions/transaction-error';

/** A blockhash is accepted for 150 blocks after its own, as on Solana. */
export const MAX_PROCESSING_AGE = 150;
/** How often the ledger's WAL is checkpointed (from the block timer, between transactions). */
const CHECKPOINT_INTERVAL_MS = 1000;
/** Blockhashes kept (the ledger's `blocks` table and memory): Solana's recent-blockhashes queue. */
export const RECENT_BLOCKHASHES_KEPT = 300;

export interface CommittedTransaction {
  signature: string;
  slot: number;
  err: TransactionErrorJson | null;
  writes: AccountWrite[];
}

export interface SlotEvent {
  slot: number;
  parent: number;
  root: number;
}

/**
 * The chain's head: current slot and block height, the recent blockhashes, and the one way
 * transactions reach the ledger. Blocks are produced by `produceBlock` (a timer calls it every
 * `slot_ms`); transactions run on arrival in the current slot and commit atomically, each with
 * its status, in one SQLite transaction.
 */
export class Bank {
  private readonly events = new EventEmitter();
  private readonly byHash = new Map<string, BlockRecord>();
  private readonly bySlot = new Map<number, BlockRecord>();
  private head: BlockRecord;
  private transactions: number;
  private lastCheckpointMs = 0;

  constructor(
    private readonly ledger: LedgerStore,
    private readonly executor: TransactionExecutor,
    readonly genesisHash: string,
  ) {
    const blocks = ledger.recentBlocks();
    if (blocks.length === 0) throw new Error('ledger has no blocks: run genesis first');
    for (const b of blocks) this.remember(b);
    this.head = blocks[blocks.length - 1];
    this.transactions = ledger.countTransactions();
    this.events.setMaxListeners(0);
  }

  /** Writes block 0 of an empty ledger (inside the genesis SQLite transaction). */
  static writeGenesisBlock(ledger: LedgerStore, genesisHash: string, unixTime: number): void {
    ledger.insertBlock({ height: 0, slot: 0, blockhash: genesisHash, unixTime }, 0);
    ledger.putMeta('genesis_hash', genesisHash);
  }

  get slot(): number {
    return this.head.slot;
  }
  get blockHeight(): number {
    return this.head.height;
  }
  get latestBlockhash(): string {
    return this.head.blockhash;
  }
  get transactionCount(): number {
    return this.transactions;
  }

  /** The last block height at which the latest blockhash is still accepted. */
  get lastValidBlockHeight(): number {
    return this.head.height + MAX_PROCESSING_AGE;
  }

  clock(): Clock {
    return { slot: this.head.slot, unixTimestamp: this.head.unixTime };
  }

  blockTime(slot: number): number | null {
    return this.bySlot.get(slot)?.unixTime ?? null;
  }

  isBlockhashValid(blockhash: string): boolean {
    const block = this.byHash.get(blockhash);
    return block !== undefined && this.head.height <= block.height + MAX_PROCESSING_AGE;
  }

  /** Closes the current slot and opens the next one with a new blockhash. */
  produceBlock(nowMs = Date.now()): BlockRecord {
    const parent = this.head;
    const slot = parent.slot + 1;
    const seed = Buffer.alloc(8);
    seed.writeBigUInt64LE(BigInt(slot));
    const hash = createHash('sha256').update(bs58.decode(parent.blockhash)).update(seed).digest();
    const block: BlockRecord = {
      height: parent.height + 1,
      slot,
      blockhash: bs58.encode(hash),
      unixTime: Math.max(parent.unixTime, Math.floor(nowMs / 1000)),
    };
    const keepFrom = block.height - RECENT_BLOCKHASHES_KEPT + 1;
    this.ledger.insertBlock(block, keepFrom);
    this.remember(block);
    for (const [hash, b] of this.byHash) {
      if (b.height >= keepFrom) break;
      this.byHash.delete(hash);
      this.bySlot.delete(b.slot);
    }
    this.head = block;
    if (nowMs - this.lastCheckpointMs >= CHECKPOINT_INTERVAL_MS) {
      this.ledger.checkpoint();
      this.lastCheckpointMs = nowMs;
    }
    this.events.emit('slot', { slot, parent: parent.slot, root: slot } satisfies SlotEvent);
    return block;
  }

  /** Runs a transaction against the current state without keeping anything. */
  simulate(tx: SanitizedTransaction): ExecutionResult {
    return this.executor.simulate(tx, this.environment());
  }

  /**
   * Runs a transaction and, when it is chargeable (and `commitFailures` or it succeeded),
   * commits it. Returns the result and whether it was committed.
   */
  execute(
    tx: SanitizedTransaction,
    commitFailures: boolean,
  ): { result: ExecutionResult; committed: boolean } {
    const result = this.executor.process(tx, this.environment());
    const commit = result.chargeable && (result.err === null || commitFailures);
    if (!commit) {
      if (result.chargeable) this.executor.rollback(result);
      return { result, committed: false };
    }
    try {
      this.commit(tx, result);
    } catch (err) {
      // Nothing reached the ledger: the executor forgets the transaction too.
      this.executor.rollback(result);
      throw err;
    }
    return { result, committed: true };
  }

  onSlot(listener: (e: SlotEvent) => void): () => void {
    this.events.on('slot', listener);
    return () => this.events.off('slot', listener);
  }

  onTransaction(listener: (t: CommittedTransaction) => void): () => void {
    this.events.on('transaction', listener);
    return () => this.events.off('transaction', listener);
  }

  private commit(tx: SanitizedTransaction, result: ExecutionResult): void {
    const slot = this.head.slot;
    this.ledger.atomically(() => {
      this.ledger.writeAccounts(result.writes);
      this.ledger.insertTransaction({
        signature: tx.signatures[0],
        slot,
        blockTime: this.head.unixTime,
        err: result.err === null ? null : JSON.stringify(result.err),
        logs: result.logs,
        fee: result.fee,
        raw: tx.raw,
        preBalances: result.preBalances,
        postBalances: result.postBalances,
        unitsConsumed: result.unitsConsumed,
      });
    });
    this.transactions++;
    this.events.emit('transaction', {
      signature: tx.signature,
      slot,
      err: result.err,
      writes: result.writes,
    } satisfies CommittedTransaction);
  }

  private environment() {
    return {
      clock: this.clock(),
      isBlockhashValid: (hash: string) => this.isBlockhashValid(hash),
      isProcessed: (signature: Buffer) => this.ledger.hasTransaction(signature),
    };
  }

  private remember(block: BlockRecord): void {
    this.byHash.set(block.blockhash, block);
    this.bySlot.set(block.slot, block);
  }
}
