import { address } from '@solana/kit';
import bs58 from 'bs58';
import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { FailedTransactionMetadata, LiteSVM, TransactionMetadata } from 'litesvm';
import { Account } from 'litesvm/dist/internal';
import type { LiteSvm } from 'litesvm/dist/internal';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TAPE_SIZE } from '../../src/chain/account-layouts';
import { DEFAULT_TAPE_PROGRAM_ID, SYSTEM_PROGRAM_ID } from '../../src/chain/program-ids';
import { rentExempt } from './oracle/test-ledger';
import {
  HostAccount,
  HostOutcome,
  PROGRAM_ADDRESSES,
  ProgramHost,
  START_UNIX_TIMESTAMP,
} from './program-host';
import { base58, keyBytes } from './key-cache';
import { ownLogs } from './program-logs';
import { errorKind } from './svm-errors';
import { unsignedWireTransaction } from './wire-transaction';

export const TAPE_ELF_PATH = join(__dirname, '..', 'tape.so');

const FEE_PAYER_LAMPORTS = 1_000_000_000_000_000n;

const elfs = new Map<string, Buffer>();

function loadElf(path: string): Buffer {
  if (!existsSync(path)) throw new Error('program/tape.so not built: run npm run build:program');
  let bytes = elfs.get(path);
  if (!bytes) elfs.set(path, (bytes = readFileSync(path)));
  return bytes;
}

/**
 * The C tape program (`program/tape.so`) on the real SVM (litesvm, with the real System, SPL
 * Token and Associated Token programs). Signatures are not verified, so an instruction's
 * signer flags are all the program sees; a fee payer of the host's own, never one of the
 * instruction's accounts, keeps fees out of every compared balance.
 */
export class SvmHost implements ProgramHost {
  readonly name = 'svm';
  readonly programId = DEFAULT_TAPE_PROGRAM_ID;
  readonly feePayer = Keypair.generate().publicKey;
  private readonly svm: LiteSVM;
  /**
   * litesvm's own bindings, for account reads and writes by raw address: the public methods
   * convert every address through @solana/kit's base58 codec, ten times the cost of the call.
   */
  private readonly raw: LiteSvm;
  private readonly seen = new Map<string, PublicKey>();
  /** Every log line of the last transaction, for reports and the host's own specs. */
  lastLogLines: string[] = [];

  /**
   * `elfPath` defaults to program/tape.so; `loadProgram: false` runs without the tape program,
   * for specs of the host itself.
   */
  constructor(options: { elfPath?: string; loadProgram?: boolean } = {}) {
    const bytes = options.loadProgram === false ? null : loadElf(options.elfPath ?? TAPE_ELF_PATH);
    this.svm = new LiteSVM().withSigverify(false);
    this.raw = (this.svm as unknown as { inner: LiteSvm }).inner;
    if (bytes) this.svm.addProgram(address(this.programId.toBase58()), bytes);
    checkRent(this.svm);
    this.reset();
  }

  setAccount(address: PublicKey, account: Partial<HostAccount>): void {
    this.remember(address);
    this.raw.setAccount(
      keyBytes(address),
      new Account(
        BigInt(account.lamports ?? 0),
        account.data ?? Buffer.alloc(0),
        keyBytes(account.owner ?? SYSTEM_PROGRAM_ID),
        account.executable ?? false,
        0n,
      ),
    );
  }

  getAccount(address: PublicKey): HostAccount | undefined {
    const stored = this.raw.getAccount(keyBytes(address));
    if (!stored || stored.lamports() === 0n) return undefined;
    return {
      lamports: Number(stored.lamports()),
      owner: ownerKey(stored.owner()),
      data: Buffer.from(stored.data()),
      executable: stored.executable(),
    };
  }

  get unixTimestamp(): number {
    return Number(this.svm.getClock().unixTimestamp);
  }

  setUnixTimestamp(unixTimestamp: number): void {
    const clock = this.svm.getClock();
    clock.unixTimestamp = BigInt(unixTimestamp);
    this.svm.setClock(clock);
  }

  execute(ix: TransactionInstruction): HostOutcome {
    for (const key of ix.keys) this.remember(key.pubkey);
    const blockhash = bs58.decode(this.svm.latestBlockhash());
    const wire = unsignedWireTransaction(this.feePayer, blockhash, ix);
    // The raw binding takes wire bytes; the public method decodes and re-encodes them with kit.
    const result = this.raw.sendLegacyTransaction(wire);
    // litesvm refuses a transaction it has seen: the next one gets another blockhash.
    this.svm.expireBlockhash();
    if (result instanceof FailedTransactionMetadata) {
      this.lastLogLines = result.meta().logs();
      return { error: errorKind(result), logs: ownLogs(this.lastLogLines, this.programId) };
    }
    const meta: TransactionMetadata = result;
    this.lastLogLines = meta.logs();
    return {
      error: null,
      logs: ownLogs(this.lastLogLines, this.programId),
      computeUnits: Number(meta.computeUnitsConsumed()),
    };
  }

  knownAccounts(): PublicKey[] {
    return [...this.seen.values()];
  }

  reset(): void {
    for (const key of this.seen.values()) this.raw.setAccount(keyBytes(key), emptyAccount());
    this.seen.clear();
    this.setAccount(this.feePayer, { lamports: Number(FEE_PAYER_LAMPORTS) });
    this.seen.delete(base58(this.feePayer));
    this.setUnixTimestamp(START_UNIX_TIMESTAMP);
  }

  private remember(address: PublicKey): void {
    const key = base58(address);
    if (!PROGRAM_ADDRESSES.has(key) && key !== base58(this.feePayer)) this.seen.set(key, address);
  }
}

const owners = new Map<string, PublicKey>();

/** Owners are a handful of programs: one PublicKey each instead of one per read. */
function ownerKey(bytes: Uint8Array): PublicKey {
  const id = Buffer.from(bytes).toString('latin1');
  let key = owners.get(id);
  if (!key) owners.set(id, (key = new PublicKey(bytes)));
  return key;
}

function emptyAccount(): Account {
  return new Account(0n, new Uint8Array(0), SYSTEM_PROGRAM_ID.toBytes(), false, 0n);
}

/** The native ledger's rent (3480 lamports/byte-year x 2 years) must be the SVM's. */
function checkRent(svm: LiteSVM): void {
  for (const length of [0, TAPE_SIZE, 10_240]) {
    const svmRent = Number(svm.minimumBalanceForRentExemption(BigInt(length)));
    if (svmRent !== rentExempt(length)) {
      throw new Error(
        `litesvm rent for ${length} bytes is ${svmRent}, native ${rentExempt(length)}`,
      );
    }
  }
}
