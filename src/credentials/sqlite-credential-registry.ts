import { join, resolve } from 'node:path';
import { CredentialCipher, SealedSecret, StoredCredential } from './credential-cipher';
import { CredentialSummary, IssuedCredential, RevokeOutcome } from './credential-registry';
import { SealedCredentialRegistry } from './sealed-credential-registry';
import { makeDirectory } from '../config/directories';
import { openPrivateDatabase } from '../config/private-files';
import type { SqliteDatabase } from '../config/sqlite';

export const CREDENTIALS_FILE = 's3-credentials.sqlite';
export const OPERATOR_KEY_FILE = 's3-credentials.key';

interface Row {
  access_key_id: string;
  tape: string;
  secret_iv: Buffer;
  secret_tag: Buffer;
  secret_ciphertext: Buffer;
  created_at: number;
  revoked_at: number | null;
}

/**
 * The S3 credentials of a gateway (the CredentialRegistry by default), in `<data_dir>/s3-credentials.sqlite`, shared by the operator
 * commands (`tape gateway credentials …`, which write) and the running gateway (which reads on
 * every request, so a revocation applies at once). WAL mode lets both use the file at the same
 * time. Secrets are sealed with the operator key (credential-cipher.ts).
 */
export class SqliteCredentialRegistry extends SealedCredentialRegistry {
  private constructor(
    private readonly db: SqliteDatabase,
    cipher: CredentialCipher,
  ) {
    super(cipher);
  }

  /** `keyFile`: the operator key (default `<dataDir>/s3-credentials.key`). */
  static open(dataDir: string, keyFile?: string): SqliteCredentialRegistry {
    const dir = resolve(dataDir);
    makeDirectory(dir);
    const cipher = CredentialCipher.fromKeyFile(keyFile ?? join(dir, OPERATOR_KEY_FILE));
    const path = join(dir, CREDENTIALS_FILE);
    const db = openPrivateDatabase(path);
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE IF NOT EXISTS credentials (
      access_key_id TEXT PRIMARY KEY,
      tape TEXT NOT NULL,
      secret_iv BLOB NOT NULL,
      secret_tag BLOB NOT NULL,
      secret_ciphertext BLOB NOT NULL,
      created_at INTEGER NOT NULL,
      revoked_at INTEGER
    )`);
    return new SqliteCredentialRegistry(db, cipher);
  }

  async list(): Promise<CredentialSummary[]> {
    const rows = this.db
      .prepare('SELECT * FROM credentials ORDER BY created_at, access_key_id')
      .all() as Row[];
    return rows.map(summary);
  }

  async revoke(accessKeyId: string, now = new Date()): Promise<RevokeOutcome> {
    const row = this.row(accessKeyId);
    if (!row) return 'unknown';
    if (row.revoked_at !== null) return 'already revoked';
    this.db
      .prepare('UPDATE credentials SET revoked_at = ? WHERE access_key_id = ?')
      .run(now.getTime(), accessKeyId);
    return 'revoked';
  }

  async close(): Promise<void> {
    this.db.close();
  }

  protected async store(issued: IssuedCredential, sealed: SealedSecret): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO credentials (access_key_id, tape, secret_iv, secret_tag, secret_ciphertext, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(
        issued.accessKeyId,
        issued.tapeAddress,
        sealed.iv,
        sealed.tag,
        sealed.ciphertext,
        issued.createdAt.getTime(),
      );
  }

  protected async stored(accessKeyId: string): Promise<StoredCredential | null> {
    const row = this.row(accessKeyId);
    if (!row) return null;
    return {
      sealed: { iv: row.secret_iv, tag: row.secret_tag, ciphertext: row.secret_ciphertext },
      tape: row.tape,
      revoked: row.revoked_at !== null,
    };
  }

  private row(accessKeyId: string): Row | undefined {
    return this.db.prepare('SELECT * FROM credentials WHERE access_key_id = ?').get(accessKeyId) as
      Row | undefined;
  }
}

function summary(row: Row): CredentialSummary {
  return {
    accessKeyId: row.access_key_id,
    tapeAddress: row.tape,
    createdAt: new Date(row.created_at),
    revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
  };
}
