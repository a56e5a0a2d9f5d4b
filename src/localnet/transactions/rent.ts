/** Solana's rent parameters: 3480 lamports per byte-year, exempt at two years. */
const LAMPORTS_PER_BYTE_YEAR = 3480;
const EXEMPTION_YEARS = 2;
/** Every account is charged as if it held 128 more bytes (its metadata). */
const ACCOUNT_STORAGE_OVERHEAD = 128;

/** Maximum account data size, as on Solana (10 MiB). */
export const MAX_ACCOUNT_DATA_LENGTH = 10 * 1024 * 1024;

/** Rent-exempt minimum balance for an account holding `dataLength` bytes. */
export function minimumBalance(dataLength: number): number {
  return (ACCOUNT_STORAGE_OVERHEAD + dataLength) * LAMPORTS_PER_BYTE_YEAR * EXEMPTION_YEARS;
}

/** Solana's `rent_epoch` for rent-exempt accounts (u64::MAX). */
export const RENT_EXEMPT_EPOCH = 0xffff_ffff_ffff_ffffn;
