import { PublicKey, SystemProgram } from '@solana/web3.js';

/** The tape program's id on the local network (and the default for any cluster it is deployed to). */
export const DEFAULT_TAPE_PROGRAM_ID = new PublicKey('Tape111111111111111111111111111111111111111');

export const SYSTEM_PROGRAM_ID = SystemProgram.programId;
export const TOKEN_PROGRAM_ID = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
export const ASSOCIATED_TOKEN_PROGRAM_ID = new PublicKey(
  'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
);

export const MIB = 1024 * 1024;
/** Lamports per signature, as on Solana's clusters. */
export const LAMPORTS_PER_SIGNATURE = 5000;
export const STORAGE_TOKEN_DECIMALS = 6;
