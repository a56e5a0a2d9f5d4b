import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { openSqlite, SqliteDatabase } from './sqlite';

/**
 * Everything the gateway and the CLI keep on disk is private: the ledger (every account of the
 * local network), the track reference databases, the S3 credentials, tenants' bytes before and
 * after certification, keypairs. Files are created owner-only and directories owner-only,
 * whatever the umask (the usual 022 would leave them world-readable).
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIRECTORY_MODE = 0o700;

/**
 * Opens (creating if need be) an SQLite database whose file is owner-only. SQLite creates its
 * `-wal` and `-shm` files with the database file's permissions, so the file is made (or
 * tightened) before SQLite opens it; companions left world-readable by an older build are
 * tightened too.
 */
export function openPrivateDatabase(path: string): SqliteDatabase {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file)) chmodSync(file, PRIVATE_FILE_MODE);
  }
  return openSqlite(path);
}
