import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { createHash } from 'node:crypto';
import { decodeTape, TapeRecord } from '../../src/chain/account-layouts';
import { associatedTokenAddress, TapePdas } from '../../src/chain/pdas';
import { TapeErrorCode } from '../../src/chain/program-errors';
import { DEFAULT_TAPE_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../src/chain/program-ids';
import { decodeTokenAccount, encodeMint, MINT_SIZE } from '../../src/chain/spl-token-layouts';
import { TapeInstructions } from '../../src/chain/tape-instructions';
import { rentExempt } from './oracle/test-ledger';
import { tokenAccount } from './token-accounts';
import { HostAccount, HostOutcome, InstructionErrorKind, ProgramHost } from './program-host';

export const SOL = 1_000_000_000;
export const GENESIS = 1_700_000_000;
export const EPOCH_SECS = 3600;
export const PRICE = 1_000n;

export function custom(code: TapeErrorCode): InstructionErrorKind {
  return { Custom: code };
}

export function commitmentOf(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

interface TapeOwner {
  payer: PublicKey;
  authority: PublicKey;
  tape: PublicKey;
}

/**
 * A network in a test, on any host: config initialized, a mint and a treasury, helpers for
 * the flows. Every helper goes through the host, so a spec runs unchanged on both.
 */
export class TapeWorld<H extends ProgramHost = ProgramHost> {
  readonly ix = new TapeInstructions(DEFAULT_TAPE_PROGRAM_ID);
  readonly pdas = new TapePdas(DEFAULT_TAPE_PROGRAM_ID);
  readonly admin = Keypair.generate().publicKey;
  readonly storageAuthority = Keypair.generate().publicKey;
  readonly mint = Keypair.generate().publicKey;
  readonly treasury = Keypair.generate().publicKey;
  lastLogs: string[] = [];

  constructor(
    readonly host: H,
    readonly price = PRICE,
  ) {
    host.setUnixTimestamp(GENESIS);
    host.setAccount(this.admin, { lamports: 10 * SOL });
    host.setAccount(this.mint, {
      lamports: rentExempt(MINT_SIZE),
      owner: TOKEN_PROGRAM_ID,
      data: encodeMint({
        mintAuthority: this.admin,
        supply: 0n,
        decimals: 6,
        isInitialized: true,
        freezeAuthority: null,
      }),
    });
    this.setTokenAccount(this.treasury, this.admin, 0n);
  }

  /** Runs InitConfig at genesis, as the local network does. */
  static create<H extends ProgramHost>(host: H, price = PRICE): TapeWorld<H> {
    const world = new TapeWorld(host, price);
    world.expectOk(world.initConfigIx());
    return world;
  }

  initConfigIx(over: Partial<Parameters<TapeInstructions['initConfig']>[0]> = {}) {
    return this.ix.initConfig({
      admin: this.admin,
      mint: this.mint,
      treasury: this.treasury,
      storageAuthority: this.storageAuthority,
      epochDurationSecs: EPOCH_SECS,
      genesisTime: GENESIS,
      pricePerMibEpoch: this.price,
      ...over,
    });
  }

  run(ix: TransactionInstruction): HostOutcome {
    const outcome = this.host.execute(ix);
    this.lastLogs = outcome.logs;
    return outcome;
  }

  expectOk(ix: TransactionInstruction): HostOutcome {
    const outcome = this.run(ix);
    if (outcome.error !== null) {
      throw new Error(
        `expected success on ${this.host.name}, got ${JSON.stringify(outcome.error)}\n` +
          outcome.logs.join('\n'),
      );
    }
    return outcome;
  }

  /**
   * The error kind of a failed instruction. Also proves the failure left every account as it
   * was and, on the native runtime, that the program checked everything before its first
   * effect (docs/program.md).
   */
  failure(ix: TransactionInstruction): InstructionErrorKind | null {
    const before = this.dump();
    const outcome = this.run(ix);
    if (outcome.error === null) return null;
    if (outcome.effectsBeforeFailure)
      throw new Error(`effects before failure:\n${outcome.logs.join('\n')}`);
    if (this.dump() !== before) throw new Error(`a failed instruction changed ${this.host.name}`);
    return outcome.error;
  }

  account(address: PublicKey): HostAccount | undefined {
    return this.host.getAccount(address);
  }

  setAccount(address: PublicKey, account: Partial<HostAccount>): void {
    this.host.setAccount(address, account);
  }

  removeAccount(address: PublicKey): void {
    this.host.setAccount(address, { lamports: 0 });
  }

  /** A funded wallet; with `tokens`, also its storage-token ATA. */
  wallet(lamports = 10 * SOL, tokens = 0n): PublicKey {
    const key = Keypair.generate().publicKey;
    this.setAccount(key, { lamports });
    if (tokens > 0n) this.setTokenAccount(this.ata(key), key, tokens);
    return key;
  }

  ata(owner: PublicKey): PublicKey {
    return associatedTokenAddress(owner, this.mint);
  }

  setTokenAccount(address: PublicKey, owner: PublicKey, amount: bigint, mint = this.mint): void {
    this.setAccount(address, tokenAccount(mint, owner, amount));
  }

  tokens(address: PublicKey): bigint {
    const account = this.account(address);
    return account ? decodeTokenAccount(account.data).amount : 0n;
  }

  lamports(address: PublicKey): number {
    return this.account(address)?.lamports ?? 0;
  }

  exists(address: PublicKey): boolean {
    return this.account(address) !== undefined;
  }

  get now(): number {
    return this.host.unixTimestamp;
  }

  setNow(unixTimestamp: number): void {
    this.host.setUnixTimestamp(unixTimestamp);
  }

  setEpoch(epoch: number): void {
    this.setNow(GENESIS + epoch * EPOCH_SECS);
  }

  tapeOf(authority: PublicKey): TapeRecord {
    return decodeTape(this.account(this.pdas.tape(authority))!.data);
  }

  /** A tape with `capacity` bytes for `epochs` epochs; its payer and authority sign. */
  newTape(capacity = 4 * 1024 * 1024, epochs = 10): TapeOwner {
    const payer = this.wallet(10 * SOL, 10n ** 18n);
    const authority = Keypair.generate().publicKey;
    const ix = this.ix.createTape({
      payer,
      authority,
      mint: this.mint,
      treasury: this.treasury,
      capacity,
      epochs,
    });
    this.expectOk(ix);
    return { payer, authority, tape: this.pdas.tape(authority) };
  }

  /**
   * Publish of a version of `t` over `expectedSequence` (root from the sequence unless given),
   * signed by its authority and the storage authority; live, or under `over.alias`.
   */
  publishIx(
    t: TapeOwner,
    expectedSequence: number,
    versionBytes: number,
    keptBytes: number,
    over: { root?: Buffer; signer?: PublicKey; storageAuthority?: PublicKey; alias?: string } = {},
  ) {
    return this.ix.publish({
      signer: over.signer ?? t.authority,
      storageAuthority: over.storageAuthority ?? this.storageAuthority,
      tape: t.tape,
      expectedSequence,
      root: over.root ?? commitmentOf(`root of version ${expectedSequence + 1}`),
      versionBytes,
      keptBytes,
      alias: over.alias,
    });
  }

  /** SetCurrent of `t` to `version`, by its authority unless `signer` is given. */
  setCurrentIx(t: TapeOwner, expectedSequence: number, version: number, signer = t.authority) {
    return this.ix.setCurrent({ signer, tape: t.tape, expectedSequence, version });
  }

  removeAliasIx(t: TapeOwner, expectedSequence: number, name: string, signer = t.authority) {
    return this.ix.removeAlias({ signer, tape: t.tape, expectedSequence, name });
  }

  setKeepIx(t: TapeOwner, expectedSequence: number, keep: number, signer = t.authority) {
    return this.ix.setKeep({ signer, tape: t.tape, expectedSequence, keep });
  }

  /** Every account the host knows, as text, to prove a failed instruction left no trace. */
  dump(): string {
    return this.host
      .knownAccounts()
      .map((key) => [key, this.account(key)] as const)
      .filter(([, a]) => a !== undefined)
      .map(
        ([k, a]) =>
          `${k.toBase58()}:${a!.lamports}:${a!.owner.toBase58()}:${a!.data.toString('hex')}`,
      )
      .sort()
      .join('\n');
  }
}
