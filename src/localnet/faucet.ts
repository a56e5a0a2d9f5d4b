import { randomInt } from 'node:crypto';
import {
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  SystemProgram,
  TransactionInstruction,
} from '@solana/web3.js';
import { decodeConfig } from '../chain/account-layouts';
import { associatedTokenAddress, TapePdas } from '../chain/pdas';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from '../chain/program-ids';
import { Bank } from './bank/bank';
import { executeLocalTransaction } from './bank/local-transaction';
import { LedgerStore } from './ledger/ledger-store';

export interface FaucetLimits {
  /** Largest SOL airdrop per request, in lamports. */
  maxAirdropLamports: number;
  /** Largest storage-token grant per request, in base units. */
  maxStorageTokens: bigint;
}

/** Why a faucet request was refused (the RPC answers -32602 with the message). */
export class FaucetRefusal extends Error {}

/**
 * The local network's faucet: SOL by System transfer from the faucet account, storage tokens by
 * minting (the faucet is the mint authority) into the owner's associated token account, created
 * if missing. Each grant is an ordinary signed transaction with a signature clients confirm.
 */
export class Faucet {
  /** Makes every faucet transaction unique, so two equal grants in one slot are not replays. */
  /**
   * Makes each faucet transaction unique (its compute-unit limit), so two equal requests within
   * one blockhash are two transactions. It starts at random: recent blockhashes survive a
   * restart, and a counter from 0 repeated the first transactions of the last run ("already
   * processed").
   */
  private sequence = randomInt(1_000_000);

  constructor(
    private readonly bank: Bank,
    private readonly ledger: LedgerStore,
    private readonly keypair: Keypair,
    private readonly programId: PublicKey,
    readonly limits: FaucetLimits,
  ) {}

  get publicKey(): PublicKey {
    return this.keypair.publicKey;
  }

  airdrop(to: PublicKey, lamports: number): string {
    if (!Number.isSafeInteger(lamports) || lamports <= 0) {
      throw new FaucetRefusal('lamports must be a positive integer');
    }
    if (lamports > this.limits.maxAirdropLamports) {
      throw new FaucetRefusal(
        `airdrop of ${lamports} lamports exceeds the limit of ${this.limits.maxAirdropLamports} per request`,
      );
    }
    const transfer = SystemProgram.transfer({
      fromPubkey: this.keypair.publicKey,
      toPubkey: to,
      lamports,
    });
    return this.run([transfer]);
  }

  storageTokens(owner: PublicKey, amount: bigint): string {
    if (amount <= 0n) throw new FaucetRefusal('amount must be a positive number of base units');
    if (amount > this.limits.maxStorageTokens) {
      throw new FaucetRefusal(
        `grant of ${amount} base units exceeds the limit of ${this.limits.maxStorageTokens} per request`,
      );
    }
    const mint = this.storageMint();
    const ata = associatedTokenAddress(owner, mint);
    const createAta = new TransactionInstruction({
      programId: ASSOCIATED_TOKEN_PROGRAM_ID,
      keys: [
        { pubkey: this.keypair.publicKey, isSigner: true, isWritable: true },
        { pubkey: ata, isSigner: false, isWritable: true },
        { pubkey: owner, isSigner: false, isWritable: false },
        { pubkey: mint, isSigner: false, isWritable: false },
        { pubkey: SYSTEM_PROGRAM_ID, isSigner: false, isWritable: false },
        { pubkey: TOKEN_PROGRAM_ID, isSigner: false, isWritable: false },
      ],
      data: Buffer.from([1]),
    });
    const data = Buffer.alloc(9);
    data.writeUInt8(7, 0);
    data.writeBigUInt64LE(amount, 1);
    const mintTo = new TransactionInstruction({
      programId: TOKEN_PROGRAM_ID,
      keys: [
        { pubkey: mint, isSigner: false, isWritable: true },
        { pubkey: ata, isSigner: false, isWritable: true },
        { pubkey: this.keypair.publicKey, isSigner: true, isWritable: false },
      ],
      data,
    });
    return this.run([createAta, mintTo]);
  }

  /** The storage-token mint, as the tape program's Config account names it. */
  storageMint(): PublicKey {
    const config = this.ledger.getAccount(new TapePdas(this.programId).config().toBuffer());
    if (!config) throw new Error('the tape program has no Config account');
    return decodeConfig(config.data).mint;
  }

  private run(instructions: TransactionInstruction[]): string {
    this.sequence = (this.sequence + 1) % 1_000_000;
    const unique = ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 + this.sequence });
    try {
      return executeLocalTransaction(this.bank, [unique, ...instructions], [this.keypair]);
    } catch (err) {
      throw new FaucetRefusal(
        `faucet transaction failed: ${(err as Error).message.split('\n')[0]}`,
      );
    }
  }
}
