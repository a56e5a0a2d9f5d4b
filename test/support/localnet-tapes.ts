import { Keypair, PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import {
  decodeName,
  decodeTape,
  decodeTrack,
  NameRecord,
  TapeRecord,
  TrackKind,
  TrackRecord,
} from '../../src/chain/account-layouts';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../src/chain/program-ids';
import { TapeInstructions } from '../../src/chain/tape-instructions';
import { encodeInstructionData, Tag } from '../../src/chain/tape-instruction-data';
import { LocalnetClient } from './localnet-client';

export interface TestTape {
  keypair: Keypair;
  address: PublicKey;
}

/** Builds tape-program transactions with `TapeInstructions` and reads accounts back. */
export class TapeFixture {
  readonly ix = new TapeInstructions(DEFAULT_TAPE_PROGRAM_ID);

  constructor(
    readonly client: LocalnetClient,
    readonly storageAuthority: Keypair,
  ) {}

  /** A wallet with SOL and storage tokens (base units). */
  async wallet(sol = 10, tokens = 1_000_000_000n): Promise<Keypair> {
    const payer = await this.client.funded(sol);
    if (tokens > 0n) await this.client.storageTokens(payer.publicKey, tokens);
    return payer;
  }

  async createIx(payer: PublicKey, authority: PublicKey, capacity: number, epochs: number) {
    const { mint, treasury } = await this.client.networkConfig();
    return this.ix.createTape({ payer, authority, mint, treasury, capacity, epochs });
  }

  async createTape(payer: Keypair, capacity = 4 * 1024 * 1024, epochs = 10): Promise<TestTape> {
    const keypair = Keypair.generate();
    await this.client.send(
      [await this.createIx(payer.publicKey, keypair.publicKey, capacity, epochs)],
      [payer, keypair],
    );
    return { keypair, address: this.ix.pdas.tape(keypair.publicKey) };
  }

  writeTrackIx(
    payer: PublicKey,
    signer: PublicKey,
    tape: PublicKey,
    size: number,
    commitment: Buffer = randomBytes(32),
  ): { ix: TransactionInstruction; track: PublicKey; commitment: Buffer } {
    const ix = this.ix.writeTrack({
      payer,
      signer,
      tape,
      commitment,
      size,
      kind: TrackKind.Blob,
      contentType: 'text/html',
    });
    return { ix, track: this.ix.pdas.track(tape, commitment), commitment };
  }

  /** Writes and certifies a track; returns its address. */
  async certifiedTrack(payer: Keypair, tape: TestTape, size = 1000): Promise<PublicKey> {
    const { ix, track } = this.writeTrackIx(
      payer.publicKey,
      tape.keypair.publicKey,
      tape.address,
      size,
    );
    await this.client.send([ix], [payer, tape.keypair]);
    await this.certify(track);
    return track;
  }

  async certify(track: PublicKey): Promise<void> {
    await this.client.send(
      [this.ix.certifyTrack({ storageAuthority: this.storageAuthority.publicKey, track })],
      [this.storageAuthority],
    );
  }

  setNameIx(
    payer: PublicKey,
    signer: PublicKey,
    tape: PublicKey,
    name: string,
    track: PublicKey,
    previousTrack?: PublicKey,
  ): TransactionInstruction {
    return this.ix.setName({
      payer,
      signer,
      tape,
      name,
      track,
      contentType: 'text/html',
      previousTrack,
    });
  }

  /**
   * SetName as any web3.js client can send it, bypassing `TapeInstructions.setName`'s own checks
   * (it refuses hidden names): what the program itself accepts is under test.
   */
  rawSetNameIx(
    payer: PublicKey,
    signer: PublicKey,
    tape: PublicKey,
    name: string,
    track: PublicKey,
  ): TransactionInstruction {
    const ix = this.setNameIx(payer, signer, tape, 'placeholder', track);
    const keys = ix.keys.map((k, i) =>
      i === 3 ? { ...k, pubkey: this.ix.pdas.name(tape, name) } : k,
    );
    const data = encodeInstructionData({ tag: Tag.SetName, name, contentType: 'text/html' });
    return new TransactionInstruction({ programId: ix.programId, keys, data });
  }

  async tape(address: PublicKey): Promise<TapeRecord> {
    return decodeTape(await this.data(address));
  }

  async track(address: PublicKey): Promise<TrackRecord | null> {
    const info = await this.client.connection.getAccountInfo(address);
    return info ? decodeTrack(info.data) : null;
  }

  async name(tape: PublicKey, name: string): Promise<NameRecord | null> {
    const info = await this.client.connection.getAccountInfo(this.ix.pdas.name(tape, name));
    return info ? decodeName(info.data) : null;
  }

  private async data(address: PublicKey): Promise<Buffer> {
    const info = await this.client.connection.getAccountInfo(address);
    if (!info) throw new Error(`no account at ${address.toBase58()}`);
    return info.data;
  }
}

/** Solana's packet limit for a whole transaction, signatures included. */
const PACKET_BYTES = 1232;
const PLACEHOLDER_BLOCKHASH = '11111111111111111111111111111111';

/** Greedily packs instructions into transactions that each fit 1232 bytes on the wire. */
export function packInstructions(
  instructions: TransactionInstruction[],
  feePayer: PublicKey,
): TransactionInstruction[][] {
  const batches: TransactionInstruction[][] = [];
  let current: TransactionInstruction[] = [];
  for (const ix of instructions) {
    const candidate = [...current, ix];
    if (current.length > 0 && wireSize(candidate, feePayer) > PACKET_BYTES) {
      batches.push(current);
      current = [ix];
    } else {
      current = candidate;
    }
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

function wireSize(instructions: TransactionInstruction[], feePayer: PublicKey): number {
  const message = new Transaction({ feePayer, recentBlockhash: PLACEHOLDER_BLOCKHASH })
    .add(...instructions)
    .compileMessage();
  const signatures = message.header.numRequiredSignatures;
  return 1 + 64 * signatures + message.serialize().length;
}
