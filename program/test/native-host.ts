import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../src/chain/program-ids';
import { TapeProgram } from './oracle/tape-program';
import { TestLedger } from './oracle/test-ledger';
import { TestSystemProgram, TestTokenProgram } from './oracle/test-natives';
import { base58 } from './key-cache';
import {
  HostAccount,
  HostOutcome,
  PROGRAM_ADDRESSES,
  ProgramHost,
  START_UNIX_TIMESTAMP,
} from './program-host';

const LOG_PREFIX = 'Program log: ';

/** The TypeScript tape program on the in-memory test ledger: the oracle. */
export class NativeHost implements ProgramHost {
  readonly name = 'native';
  readonly programId = DEFAULT_TAPE_PROGRAM_ID;
  readonly program = new TapeProgram(DEFAULT_TAPE_PROGRAM_ID);
  readonly ledger = new TestLedger([this.program, new TestSystemProgram(), new TestTokenProgram()]);
  private readonly seen = new Map<string, PublicKey>();

  constructor() {
    this.reset();
  }

  setAccount(address: PublicKey, account: Partial<HostAccount>): void {
    this.remember(address);
    if (!account.lamports) this.ledger.accounts.delete(base58(address));
    else this.ledger.set(address, account);
  }

  getAccount(address: PublicKey): HostAccount | undefined {
    const stored = this.ledger.accounts.get(base58(address));
    return stored && stored.lamports > 0 ? stored : undefined;
  }

  get unixTimestamp(): number {
    return this.ledger.clock.unixTimestamp;
  }

  setUnixTimestamp(unixTimestamp: number): void {
    this.ledger.clock.unixTimestamp = unixTimestamp;
  }

  execute(ix: TransactionInstruction): HostOutcome {
    for (const key of ix.keys) this.remember(key.pubkey);
    const outcome = this.ledger.execute(ix);
    return {
      error: outcome.error,
      // The test natives never log, so every "Program log:" line is the tape program's.
      logs: outcome.logs
        .filter((l) => l.startsWith(LOG_PREFIX))
        .map((l) => l.slice(LOG_PREFIX.length)),
      effectsBeforeFailure: outcome.effectsBeforeFailure,
    };
  }

  knownAccounts(): PublicKey[] {
    for (const key of this.ledger.accounts.keys()) {
      if (!this.seen.has(key)) this.seen.set(key, new PublicKey(key));
    }
    return [...this.seen.values()];
  }

  reset(): void {
    this.ledger.accounts.clear();
    this.seen.clear();
    this.ledger.clock.unixTimestamp = START_UNIX_TIMESTAMP;
  }

  private remember(address: PublicKey): void {
    const key = base58(address);
    if (!PROGRAM_ADDRESSES.has(key)) this.seen.set(key, address);
  }
}
