import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { createHash } from 'node:crypto';
import {
  decodeName,
  decodeTape,
  decodeTrack,
  NameRecord,
  TapeRecord,
  TrackKind,
  TrackRecord,
} from '../../chain/account-layouts';
import { associatedTokenAddress, TapePdas } from '../../chain/pdas';
import { TapeErrorCode } from '../../chain/program-errors';
import { DEFAULT_TAPE_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../chain/program-ids';
import {
  decodeTokenAccount,
  encodeMint,
  encodeTokenAccount,
  MINT_SIZE,
  TOKEN_ACCOUNT_SIZE,
} from '../../chain/spl-token-layouts';
import { TapeInstructions } from '../../chain/tape-instructions';
import { InstructionErrorKind } from '../runtime/native-program';
import { TapeProgram } from './tape-program';
import { Outcome, rentExempt, TestLedger } from './test-ledger.spec-support';
import { TestSystemProgram, TestTokenProgram } from './test-natives.spec-support';

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

/** A local network in a test: config initialized, a mint and a treasury, helpers for the flows. */
export class TapeWorld {
  readonly program = new TapeProgram(DEFAULT_TAPE_PROGRAM_ID);
  readonly ledger = new TestLedger([this.program, new TestSystemProgram(), new TestTokenProgram()]);
  readonly ix = new TapeInstructions(DEFAULT_TAPE_PROGRAM_ID);
  readonly pdas = new TapePdas(DEFAULT_TAPE_PROGRAM_ID);
  readonly admin = Keypair.generate().publicKey;
  readonly storageAuthority = Keypair.generate().publicKey;
  readonly mint = Keypair.generate().publicKey;
  readonly treasury = Keypair.generate().publicKey;

  constructor(readonly price = PRICE) {
    this.ledger.clock.unixTimestamp = GENESIS;
    this.ledger.set(this.admin, { lamports: 10 * SOL });
    this.ledger.set(this.mint, {
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
  static create(price = PRICE): TapeWorld {
    const world = new TapeWorld(price);
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

  run(ix: TransactionInstruction): Outcome {
    return this.ledger.execute(ix);
  }

  expectOk(ix: TransactionInstruction): Outcome {
    const outcome = this.run(ix);
    if (outcome.error !== null) {
      throw new Error(
        `expected success, got ${JSON.stringify(outcome.error)}\n${outcome.logs.join('\n')}`,
      );
    }
    return outcome;
  }

  /**
   * The error kind of a failed instruction. Also proves the program checked everything before
   * its first effect (docs/program.md) and that the failure left the ledger untouched.
   */
  failure(ix: TransactionInstruction): InstructionErrorKind | null {
    const before = this.dump();
    const outcome = this.run(ix);
    if (outcome.effectsBeforeFailure)
      throw new Error(`effects before failure:\n${outcome.logs.join('\n')}`);
    if (this.dump() !== before) throw new Error('a failed instruction changed the ledger');
    this.lastLogs = outcome.logs;
    return outcome.error;
  }

  lastLogs: string[] = [];

  /** A funded wallet; with `tokens`, also its storage-token ATA. */
  wallet(lamports = 10 * SOL, tokens = 0n): PublicKey {
    const key = Keypair.generate().publicKey;
    this.ledger.set(key, { lamports });
    if (tokens > 0n) this.setTokenAccount(this.ata(key), key, tokens);
    return key;
  }

  ata(owner: PublicKey): PublicKey {
    return associatedTokenAddress(owner, this.mint);
  }

  setTokenAccount(address: PublicKey, owner: PublicKey, amount: bigint, mint = this.mint): void {
    this.ledger.set(address, {
      lamports: rentExempt(TOKEN_ACCOUNT_SIZE),
      owner: TOKEN_PROGRAM_ID,
      data: encodeTokenAccount({
        mint,
        owner,
        amount,
        delegate: null,
        state: 1,
        isNative: null,
        delegatedAmount: 0n,
        closeAuthority: null,
      }),
    });
  }

  tokens(address: PublicKey): bigint {
    const account = this.ledger.get(address);
    return account ? decodeTokenAccount(account.data).amount : 0n;
  }

  lamports(address: PublicKey): number {
    return this.ledger.lamports(address);
  }

  exists(address: PublicKey): boolean {
    return this.ledger.get(address) !== undefined;
  }

  setEpoch(epoch: number): void {
    this.ledger.clock.unixTimestamp = GENESIS + epoch * EPOCH_SECS;
  }

  tapeOf(authority: PublicKey): TapeRecord {
    return decodeTape(this.ledger.get(this.pdas.tape(authority))!.data);
  }

  track(tape: PublicKey, commitment: Buffer): TrackRecord {
    return decodeTrack(this.ledger.get(this.pdas.track(tape, commitment))!.data);
  }

  nameRecord(tape: PublicKey, name: string): NameRecord {
    return decodeName(this.ledger.get(this.pdas.name(tape, name))!.data);
  }

  /** A tape with `capacity` bytes for `epochs` epochs; its payer and authority sign. */
  newTape(capacity = 4 * 1024 * 1024, epochs = 10) {
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

  writeTrackIx(
    t: { payer: PublicKey; authority: PublicKey; tape: PublicKey },
    body: string,
    over: { signer?: PublicKey; size?: number; contentType?: string } = {},
  ) {
    return this.ix.writeTrack({
      payer: t.payer,
      signer: over.signer ?? t.authority,
      tape: t.tape,
      commitment: commitmentOf(body),
      size: over.size ?? Buffer.byteLength(body),
      kind: TrackKind.Blob,
      contentType: over.contentType ?? 'text/plain',
    });
  }

  /** A written and certified track; returns its address. */
  certifiedTrack(
    t: { payer: PublicKey; authority: PublicKey; tape: PublicKey },
    body: string,
    size?: number,
  ): PublicKey {
    this.expectOk(this.writeTrackIx(t, body, { size }));
    const track = this.pdas.track(t.tape, commitmentOf(body));
    this.expectOk(this.ix.certifyTrack({ storageAuthority: this.storageAuthority, track }));
    return track;
  }

  setNameIx(
    t: { payer: PublicKey; authority: PublicKey; tape: PublicKey },
    name: string,
    track: PublicKey,
    over: { previousTrack?: PublicKey; contentType?: string; signer?: PublicKey } = {},
  ) {
    return this.ix.setName({
      payer: t.payer,
      signer: over.signer ?? t.authority,
      tape: t.tape,
      name,
      track,
      contentType: over.contentType ?? 'text/html',
      previousTrack: over.previousTrack,
    });
  }

  /** The whole ledger as text, to prove a failed instruction left no trace. */
  dump(): string {
    return [...this.ledger.accounts.entries()]
      .map(([k, a]) => `${k}:${a.lamports}:${a.owner.toBase58()}:${a.data.toString('hex')}`)
      .sort()
      .join('\n');
  }
}
