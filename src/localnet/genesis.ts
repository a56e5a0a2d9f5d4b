import {
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  TransactionInstruction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { createHash, randomBytes } from 'node:crypto';
import { TapeInstructions } from '../chain/tape-instructions';
import { MINT_SIZE, TOKEN_ACCOUNT_SIZE } from '../chain/spl-token-layouts';
import { STORAGE_TOKEN_DECIMALS, TOKEN_PROGRAM_ID } from '../chain/program-ids';
import { Bank } from './bank/bank';
import { executeLocalTransaction } from './bank/local-transaction';
import { LedgerStore } from './ledger/ledger-store';
import { ProgramRegistry } from './runtime/program-registry';
import { minimumBalance, RENT_EXEMPT_EPOCH } from './runtime/rent';
import { TransactionProcessor } from './runtime/transaction-processor';

/** The faucet starts with one million SOL (well inside exact JS integers). */
export const FAUCET_LAMPORTS = 1_000_000 * LAMPORTS_PER_SOL;

export interface GenesisParams {
  faucet: Keypair;
  programId: PublicKey;
  storageAuthority: PublicKey;
  epochDurationSecs: number;
  pricePerMibEpoch: number;
  nowMs: number;
}

/**
 * Creates the first state of an empty ledger, all in one SQLite transaction (a crash during
 * genesis leaves an empty ledger, and the next start runs genesis again):
 * program accounts, the funded faucet, block 0 (the genesis hash), then — as ordinary signed
 * transactions — the storage-token mint (6 decimals, faucet = mint authority), the treasury
 * token account (owned by the faucet, which is the network's admin) and the tape program's
 * Config through its own InitConfig instruction.
 */
export function runGenesis(
  ledger: LedgerStore,
  registry: ProgramRegistry,
  processor: TransactionProcessor,
  p: GenesisParams,
): Bank {
  return ledger.atomically(() => {
    for (const { program, loader } of registry.all()) {
      ledger.writeAccounts([
        {
          pubkey: program.programId.toBuffer(),
          account: {
            lamports: minimumBalance(0),
            owner: loader.toBuffer(),
            executable: true,
            rentEpoch: RENT_EXEMPT_EPOCH,
            data: Buffer.alloc(0),
          },
        },
      ]);
    }
    ledger.writeAccounts([
      {
        pubkey: p.faucet.publicKey.toBuffer(),
        account: {
          lamports: FAUCET_LAMPORTS,
          owner: SystemProgram.programId.toBuffer(),
          executable: false,
          rentEpoch: RENT_EXEMPT_EPOCH,
          data: Buffer.alloc(0),
        },
      },
    ]);
    const genesisHash = bs58.encode(
      createHash('sha256')
        .update(p.faucet.publicKey.toBuffer())
        .update(p.programId.toBuffer())
        .update(String(p.nowMs))
        .update(randomBytes(32))
        .digest(),
    );
    Bank.writeGenesisBlock(ledger, genesisHash, Math.floor(p.nowMs / 1000));
    const bank = new Bank(ledger, processor, genesisHash);
    const mint = Keypair.generate();
    const treasury = Keypair.generate();
    executeLocalTransaction(bank, createMint(p.faucet.publicKey, mint.publicKey), [p.faucet, mint]);
    executeLocalTransaction(
      bank,
      createTokenAccount(p.faucet.publicKey, treasury.publicKey, mint.publicKey),
      [p.faucet, treasury],
    );
    const initConfig = new TapeInstructions(p.programId).initConfig({
      admin: p.faucet.publicKey,
      mint: mint.publicKey,
      treasury: treasury.publicKey,
      storageAuthority: p.storageAuthority,
      epochDurationSecs: p.epochDurationSecs,
      genesisTime: Math.floor(p.nowMs / 1000),
      pricePerMibEpoch: BigInt(p.pricePerMibEpoch),
    });
    executeLocalTransaction(bank, [initConfig], [p.faucet]);
    return bank;
  });
}

function createMint(authority: PublicKey, mint: PublicKey): TransactionInstruction[] {
  const init = Buffer.alloc(35);
  init.writeUInt8(20, 0); // InitializeMint2
  init.writeUInt8(STORAGE_TOKEN_DECIMALS, 1);
  authority.toBuffer().copy(init, 2);
  init.writeUInt8(0, 34); // no freeze authority
  return [
    SystemProgram.createAccount({
      fromPubkey: authority,
      newAccountPubkey: mint,
      lamports: minimumBalance(MINT_SIZE),
      space: MINT_SIZE,
      programId: TOKEN_PROGRAM_ID,
    }),
    new TransactionInstruction({
      programId: TOKEN_PROGRAM_ID,
      keys: [{ pubkey: mint, isSigner: false, isWritable: true }],
      data: init,
    }),
  ];
}

function createTokenAccount(
  owner: PublicKey,
  account: PublicKey,
  mint: PublicKey,
): TransactionInstruction[] {
  const init = Buffer.concat([Buffer.from([18]), owner.toBuffer()]); // InitializeAccount3
  return [
    SystemProgram.createAccount({
      fromPubkey: owner,
      newAccountPubkey: account,
      lamports: minimumBalance(TOKEN_ACCOUNT_SIZE),
      space: TOKEN_ACCOUNT_SIZE,
      programId: TOKEN_PROGRAM_ID,
    }),
    new TransactionInstruction({
      programId: TOKEN_PROGRAM_ID,
      keys: [
        { pubkey: account, isSigner: false, isWritable: true },
        { pubkey: mint, isSigner: false, isWritable: false },
      ],
      data: init,
    }),
  ];
}
