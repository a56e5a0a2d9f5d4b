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
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  STORAGE_TOKEN_DECIMALS,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from '../chain/program-ids';
import { Bank } from './bank/bank';
import { executeLocalTransaction } from './bank/local-transaction';
import { AccountWrite, LedgerStore } from './ledger/ledger-store';
import { SvmExecutor, UPGRADEABLE_LOADER_ID } from './svm/svm-executor';
import { minimumBalance, RENT_EXEMPT_EPOCH } from './transactions/rent';

/** Programs every client expects to find (their accounts are the SVM's own). */
const BUILTIN_PROGRAMS = [
  SYSTEM_PROGRAM_ID,
  new PublicKey('ComputeBudget111111111111111111111111111111'),
  TOKEN_PROGRAM_ID,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  UPGRADEABLE_LOADER_ID,
];

/** The faucet starts with one million SOL (well inside exact JS integers). */
export const FAUCET_LAMPORTS = 1_000_000 * LAMPORTS_PER_SOL;

export interface GenesisParams {
  faucet: Keypair;
  programId: PublicKey;
  /** The tape program's ELF (program/tape.so), deployed as an upgradeable program. */
  programElf: Buffer;
  storageAuthority: PublicKey;
  epochDurationSecs: number;
  pricePerMibEpoch: number;
  nowMs: number;
}

/**
 * Creates the first state of an empty ledger, all in one SQLite transaction (a crash during
 * genesis leaves an empty ledger, and the next start runs genesis again): the builtin
 * programs' accounts, the tape program deployed under the BPF Upgradeable Loader (program and
 * program data accounts, as `solana-test-validator --upgradeable-program` places them), the
 * funded faucet, block 0 (the genesis hash), then — as ordinary signed
 * transactions — the storage-token mint (6 decimals, faucet = mint authority), the treasury
 * token account (owned by the faucet, which is the network's admin) and the tape program's
 * Config through its own InitConfig instruction.
 */
export function runGenesis(ledger: LedgerStore, executor: SvmExecutor, p: GenesisParams): Bank {
  return ledger.atomically(() => {
    const faucet: AccountWrite = {
      pubkey: p.faucet.publicKey.toBuffer(),
      account: {
        lamports: FAUCET_LAMPORTS,
        owner: SystemProgram.programId.toBuffer(),
        executable: false,
        rentEpoch: RENT_EXEMPT_EPOCH,
        data: Buffer.alloc(0),
      },
    };
    executor.write(faucet.pubkey, faucet.account);
    ledger.writeAccounts([
      ...executor.accounts(BUILTIN_PROGRAMS).filter((w) => w.account !== null),
      ...executor.deployAtGenesis(p.programId, p.programElf),
      faucet,
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
    const bank = new Bank(ledger, executor, genesisHash);
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
