/**
 * Tables of the local network's ledger. Keys are raw bytes (pubkeys 32, signatures 64), which
 * halves the index size against base58 text. `rent_epoch` holds Solana's u64 as the same 64 bits
 * read signed (u64::MAX, "rent exempt", is stored as -1).
 */
export const LEDGER_SCHEMA = `
CREATE TABLE IF NOT EXISTS accounts (
  pubkey BLOB PRIMARY KEY,
  lamports INTEGER NOT NULL,
  owner BLOB NOT NULL,
  executable INTEGER NOT NULL,
  rent_epoch INTEGER NOT NULL,
  data BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS accounts_by_owner ON accounts (owner);
CREATE TABLE IF NOT EXISTS transactions (
  signature BLOB PRIMARY KEY,
  slot INTEGER NOT NULL,
  block_time INTEGER NOT NULL,
  err TEXT,
  logs TEXT NOT NULL,
  fee INTEGER NOT NULL,
  raw BLOB NOT NULL,
  pre_balances TEXT NOT NULL,
  post_balances TEXT NOT NULL,
  units INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS blocks (
  height INTEGER PRIMARY KEY,
  slot INTEGER NOT NULL,
  blockhash TEXT NOT NULL,
  unix_time INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS blocks_by_slot ON blocks (slot);
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;
