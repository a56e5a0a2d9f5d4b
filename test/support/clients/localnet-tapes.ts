import { Keypair, PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { decodeTape, TapeRecord } from '../../../src/chain/account-layouts';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../../src/chain/program-ids';
import { TapeInstructions } from '../../../src/chain/tape-instructions';
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

  /**
   * Publish of a version of `versionBytes` on `tape` over `expectedSequence`, co-signed by the
   * storage authority (its certification). The root is random unless given: the program checks
   * the compare-and-swap and the capacity, not the manifest.
   */
  publishIx(
    signer: PublicKey,
    tape: PublicKey,
    expectedSequence: number,
    versionBytes = 1000,
    keptBytes = versionBytes,
    root: Buffer = randomBytes(32),
  ): TransactionInstruction {
    return this.ix.publish({
      signer,
      storageAuthority: this.storageAuthority.publicKey,
      tape,
      expectedSequence,
      root,
      versionBytes,
      keptBytes,
    });
  }

  /** Publishes the tape's next version; returns its number. */
  async publish(payer: Keypair, tape: TestTape, versionBytes = 1000): Promise<number> {
    const before = await this.tape(tape.address);
    await this.client.send(
      [this.publishIx(tape.keypair.publicKey, tape.address, before.sequence, versionBytes)],
      signersOf(payer, tape.keypair, this.storageAuthority),
    );
    return before.latestVersion + 1;
  }

  async tape(address: PublicKey): Promise<TapeRecord> {
    return decodeTape(await this.data(address));
  }

  private async data(address: PublicKey): Promise<Buffer> {
    const info = await this.client.connection.getAccountInfo(address);
    if (!info) throw new Error(`no account at ${address.toBase58()}`);
    return info.data;
  }
}

/** Distinct signers, the fee payer first. */
export function signersOf(...keys: Keypair[]): Keypair[] {
  return keys.filter((k, i) => keys.findIndex((o) => o.publicKey.equals(k.publicKey)) === i);
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
