import {
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
} from '@solana/web3.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TAPE_PROGRAM_ID, SYSTEM_PROGRAM_ID } from '../../chain/program-ids';
import { ProcessingEnvironment } from '../bank/execution';
import { LedgerStore, StoredAccount } from '../ledger/ledger-store';
import { RENT_EXEMPT_EPOCH } from '../transactions/rent';
import { SanitizedTransaction } from '../transactions/sanitized-transaction';
import { programDataAddress, SvmExecutor, UPGRADEABLE_LOADER_ID } from './svm-executor';
import { readTapeProgramElf } from './tape-program-elf';

const BLOCKHASH = Keypair.generate().publicKey.toBase58();

function wallet(lamports: number): StoredAccount {
  return {
    lamports,
    owner: SYSTEM_PROGRAM_ID.toBuffer(),
    executable: false,
    rentEpoch: RENT_EXEMPT_EPOCH,
    data: Buffer.alloc(0),
  };
}

function env(over: Partial<ProcessingEnvironment> = {}): ProcessingEnvironment {
  return {
    clock: { slot: 5, unixTimestamp: 1_700_000_000 },
    isBlockhashValid: () => true,
    isProcessed: () => false,
    ...over,
  };
}

function signed(instructions: TransactionInstruction[], signers: Keypair[]): SanitizedTransaction {
  const tx = new Transaction({ feePayer: signers[0].publicKey, recentBlockhash: BLOCKHASH }).add(
    ...instructions,
  );
  tx.sign(...signers);
  return SanitizedTransaction.parse(tx.serialize());
}

describe('SvmExecutor', () => {
  let dir: string;
  let ledger: LedgerStore;
  const payer = Keypair.generate();
  const to = Keypair.generate().publicKey;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svm-executor-'));
    ledger = new LedgerStore(dir);
    ledger.writeAccounts([
      { pubkey: payer.publicKey.toBuffer(), account: wallet(LAMPORTS_PER_SOL) },
    ]);
  });
  afterEach(() => {
    ledger.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const transfer = (lamports: number) =>
    signed(
      [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports })],
      [payer],
    );

  it('runs a transaction on the SVM and returns the accounts it changed, with fee and balances', () => {
    const sut = new SvmExecutor(ledger);
    const result = sut.process(transfer(1_000_000), env());
    expect(result.err).toBeNull();
    expect(result.fee).toBe(5000);
    expect(result.logs[0]).toBe('Program 11111111111111111111111111111111 invoke [1]');
    const written = new Map(
      result.writes.map((w) => [new PublicKey(w.pubkey).toBase58(), w.account]),
    );
    expect(written.get(payer.publicKey.toBase58())?.lamports).toBe(
      LAMPORTS_PER_SOL - 1_000_000 - 5000,
    );
    expect(written.get(to.toBase58())?.lamports).toBe(1_000_000);
    expect(result.preBalances.slice(0, 2)).toEqual([LAMPORTS_PER_SOL, 0]);
    expect(result.postBalances.slice(0, 2)).toEqual([LAMPORTS_PER_SOL - 1_005_000, 1_000_000]);
  });

  it("reports a failed instruction with the runtime's error, charges the fee, and rolls back on request", () => {
    const sut = new SvmExecutor(ledger);
    const result = sut.process(transfer(2 * LAMPORTS_PER_SOL), env());
    expect(result.chargeable).toBe(true);
    expect(result.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(result.writes).toHaveLength(1);
    expect(result.writes[0].account?.lamports).toBe(LAMPORTS_PER_SOL - 5000);
    sut.rollback(result);
    // After the rollback the payer can spend its whole balance again.
    expect(sut.process(transfer(LAMPORTS_PER_SOL - 5000 - 890_880), env()).err).toBeNull();
  });

  it('drops what fails before the fee (unknown payer, stale blockhash, replay) without changing anything', () => {
    const sut = new SvmExecutor(ledger);
    const stranger = Keypair.generate();
    const orphan = signed(
      [SystemProgram.transfer({ fromPubkey: stranger.publicKey, toPubkey: to, lamports: 1 })],
      [stranger],
    );
    expect(sut.process(orphan, env())).toMatchObject({
      chargeable: false,
      err: 'AccountNotFound',
      writes: [],
    });
    expect(sut.process(transfer(1), env({ isBlockhashValid: () => false })).err).toBe(
      'BlockhashNotFound',
    );
    expect(sut.process(transfer(1), env({ isProcessed: () => true })).err).toBe('AlreadyProcessed');
  });

  it('simulates without keeping anything and reports the accounts after the transaction', () => {
    const sut = new SvmExecutor(ledger);
    const simulated = sut.simulate(transfer(1_000_000), env());
    expect(simulated.err).toBeNull();
    const after = simulated.accounts.find((a) => a.pubkey.equals(to.toBuffer()));
    expect(after?.account?.lamports).toBe(1_000_000);
    const real = sut.process(transfer(1_000_000), env());
    expect(real.preBalances[1]).toBe(0);
  });

  it('deploys the tape program under the upgradeable loader and loads it back from the ledger after a restart', () => {
    const first = new SvmExecutor(ledger);
    const writes = first.deployAtGenesis(DEFAULT_TAPE_PROGRAM_ID, readTapeProgramElf());
    ledger.writeAccounts(writes);
    const program = ledger.getAccount(DEFAULT_TAPE_PROGRAM_ID.toBuffer())!;
    expect(program.executable).toBe(true);
    expect(UPGRADEABLE_LOADER_ID.toBuffer().equals(program.owner)).toBe(true);
    expect(
      ledger.getAccount(programDataAddress(DEFAULT_TAPE_PROGRAM_ID).toBuffer()),
    ).not.toBeNull();

    const restarted = new SvmExecutor(ledger);
    const empty = new TransactionInstruction({
      programId: DEFAULT_TAPE_PROGRAM_ID,
      keys: [],
      data: Buffer.alloc(0),
    });
    const result = restarted.process(
      signed([empty], [payer]),
      env({ clock: { slot: 9, unixTimestamp: 1_700_000_000 } }),
    );
    expect(result.err).toEqual({ InstructionError: [0, 'InvalidInstructionData'] });
    expect(result.logs).toContain('Program log: Error: unexpected end of data');
  });
});
