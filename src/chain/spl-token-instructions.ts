import { PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { ByteWriter } from './byte-codec';
import { ASSOCIATED_TOKEN_PROGRAM_ID, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from './program-ids';

/** SPL Token instruction tags (the first data byte). */
export enum TokenInstruction {
  MintTo = 7,
  InitializeAccount3 = 18,
  InitializeMint2 = 20,
}

/** InitializeMint2 { decimals, mint authority, no freeze authority }: `[w] mint`. */
export function initializeMint2(a: {
  mint: PublicKey;
  decimals: number;
  mintAuthority: PublicKey;
}): TransactionInstruction {
  const data = new ByteWriter()
    .u8(TokenInstruction.InitializeMint2)
    .u8(a.decimals)
    .pubkey(a.mintAuthority)
    .u8(0)
    .done();
  return new TransactionInstruction({
    programId: TOKEN_PROGRAM_ID,
    keys: [{ pubkey: a.mint, isSigner: false, isWritable: true }],
    data,
  });
}

/** InitializeAccount3 { owner }: `[w] account`, `[] mint`. */
export function initializeAccount3(a: {
  account: PublicKey;
  mint: PublicKey;
  owner: PublicKey;
}): TransactionInstruction {
  return new TransactionInstruction({
    programId: TOKEN_PROGRAM_ID,
    keys: [
      { pubkey: a.account, isSigner: false, isWritable: true },
      { pubkey: a.mint, isSigner: false, isWritable: false },
    ],
    data: new ByteWriter().u8(TokenInstruction.InitializeAccount3).pubkey(a.owner).done(),
  });
}

/** MintTo { amount }: `[w] mint`, `[w] destination`, `[s] mint authority`. */
export function mintTo(a: {
  mint: PublicKey;
  destination: PublicKey;
  authority: PublicKey;
  amount: bigint;
}): TransactionInstruction {
  return new TransactionInstruction({
    programId: TOKEN_PROGRAM_ID,
    keys: [
      { pubkey: a.mint, isSigner: false, isWritable: true },
      { pubkey: a.destination, isSigner: false, isWritable: true },
      { pubkey: a.authority, isSigner: true, isWritable: false },
    ],
    data: new ByteWriter().u8(TokenInstruction.MintTo).u64(a.amount).done(),
  });
}

/**
 * Associated Token CreateIdempotent (1): creates `owner`'s token account for `mint` at its
 * associated address, or does nothing when it exists.
 */
export function createAssociatedTokenAccountIdempotent(a: {
  payer: PublicKey;
  associatedAccount: PublicKey;
  owner: PublicKey;
  mint: PublicKey;
}): TransactionInstruction {
  return new TransactionInstruction({
    programId: ASSOCIATED_TOKEN_PROGRAM_ID,
    keys: [
      { pubkey: a.payer, isSigner: true, isWritable: true },
      { pubkey: a.associatedAccount, isSigner: false, isWritable: true },
      { pubkey: a.owner, isSigner: false, isWritable: false },
      { pubkey: a.mint, isSigner: false, isWritable: false },
      { pubkey: SYSTEM_PROGRAM_ID, isSigner: false, isWritable: false },
      { pubkey: TOKEN_PROGRAM_ID, isSigner: false, isWritable: false },
    ],
    data: Buffer.from([1]),
  });
}

/** A token program account at a seeded address: CreateAccountWithSeed, then `init` on it. */
export function createSeededTokenAccount(a: {
  payer: PublicKey;
  address: PublicKey;
  seed: string;
  space: number;
  lamports: number;
}): TransactionInstruction {
  return SystemProgram.createAccountWithSeed({
    fromPubkey: a.payer,
    newAccountPubkey: a.address,
    basePubkey: a.payer,
    seed: a.seed,
    lamports: a.lamports,
    space: a.space,
    programId: TOKEN_PROGRAM_ID,
  });
}
