import { openPrivateDatabase } from '../config/private-files';
import type { SqliteDatabase, SqliteStatement, SqliteTransaction } from '../config/sqlite';
import type {
  ClaimLimits,
  ClaimOutcome,
  ReferencedBlob,
  TrackClaim,
  TrackReference,
  TrackRole,
} from './track-store';

interface Row {
  commitment: Buffer;
  owner: string;
  tape: string;
  role: number;
  size: number;
  recorded_at: number;
}

const ROLE_CODE: Record<TrackRole, number> = { track: 0, segment: 1 };
const ROLE_NAME: TrackRole[] = ['track', 'segment'];

/**
 * Who references each stored blob, in `<store>/references.sqlite` (WAL, shared by gateways on
 * the same directory, survives restarts). A row is (commitment, owner track, role): role
 * `track` — the owner's own bytes (a blob or a manifest); role `segment` — one segment of the
 * owner, a manifest track. Two tapes uploading the same bytes give two rows for one blob.
 * `recorded_at` is refreshed by every upload, so the collector can tell a reference that
 * appeared after it looked (docs/tracks.md, "Garbage collection").
 */
export class TrackReferenceIndex {
  private readonly db: SqliteDatabase;
  private readonly upsert: SqliteStatement;
  private readonly segmentBytes: SqliteStatement;
  private readonly page: SqliteStatement;
  private readonly firstPage: SqliteStatement;
  private readonly ofCommitment: SqliteStatement;
  private readonly dropOne: SqliteStatement;
  private readonly dropAll: SqliteStatement;
  private readonly count: SqliteStatement;
  private readonly exists: SqliteStatement;
  private readonly unclaimOne: SqliteStatement;
  private readonly tapeBytes: SqliteStatement;
  private readonly tapeHas: SqliteStatement;
  private readonly ofTape: SqliteStatement;
  private readonly claimTx: SqliteTransaction<
    (claim: TrackClaim, limits: ClaimLimits, now: number) => ClaimOutcome
  >;
  private readonly claimManyTx: SqliteTransaction<(claims: TrackClaim[], now: number) => void>;

  constructor(path: string) {
    this.db = openPrivateDatabase(path);
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('journal_mode = WAL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS refs (
      commitment BLOB NOT NULL,
      owner TEXT NOT NULL,
      tape TEXT NOT NULL,
      role INTEGER NOT NULL,
      size INTEGER NOT NULL,
      recorded_at INTEGER NOT NULL,
      PRIMARY KEY (commitment, owner, role)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS refs_by_owner ON refs (owner, role);
    CREATE INDEX IF NOT EXISTS refs_by_tape ON refs (tape, commitment);`);
    this.upsert = this.db.prepare(
      `INSERT INTO refs (commitment, owner, tape, role, size, recorded_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (commitment, owner, role) DO UPDATE SET recorded_at = excluded.recorded_at`,
    );
    this.segmentBytes = this.db.prepare(
      `SELECT COALESCE(SUM(size), 0) AS total FROM refs WHERE owner = ? AND role = 1 AND commitment <> ?`,
    );
    this.firstPage = this.db.prepare(
      `SELECT DISTINCT commitment FROM refs ORDER BY commitment LIMIT ?`,
    );
    this.page = this.db.prepare(
      `SELECT DISTINCT commitment FROM refs WHERE commitment > ? ORDER BY commitment LIMIT ?`,
    );
    this.ofCommitment = this.db.prepare(`SELECT * FROM refs WHERE commitment = ?`);
    this.dropOne = this.db.prepare(
      `DELETE FROM refs WHERE commitment = ? AND owner = ? AND role = ? AND recorded_at < ?`,
    );
    this.dropAll = this.db.prepare(`DELETE FROM refs WHERE commitment = ?`);
    this.count = this.db.prepare(`SELECT COUNT(*) AS n FROM refs WHERE commitment = ?`);
    this.exists = this.db.prepare(
      `SELECT 1 FROM refs WHERE commitment = ? AND owner = ? AND role = ?`,
    );
    this.unclaimOne = this.db.prepare(
      `DELETE FROM refs WHERE commitment = ? AND owner = ? AND role = ? AND recorded_at = ?`,
    );
    this.tapeHas = this.db.prepare(`SELECT 1 FROM refs WHERE tape = ? AND commitment = ? LIMIT 1`);
    // Distinct blobs: a blob two owners of the tape reference is on disk once.
    this.tapeBytes = this.db.prepare(
      `SELECT COALESCE(SUM(size), 0) AS total FROM
       (SELECT MAX(size) AS size FROM refs WHERE tape = ? GROUP BY commitment)`,
    );
    this.ofTape = this.db.prepare(`SELECT * FROM refs WHERE tape = ? ORDER BY commitment`);
    this.claimTx = this.db.transaction(
      (claim: TrackClaim, limits: ClaimLimits, now: number): ClaimOutcome => {
        const refused = { accepted: false, inserted: false, recordedAt: now };
        const inserted =
          this.exists.get(claim.commitment, claim.track, ROLE_CODE[claim.role]) === undefined;
        const max = limits.maxOwnerSegmentBytes;
        if (inserted && claim.role === 'segment' && max !== undefined) {
          const { total } = this.segmentBytes.get(claim.track, claim.commitment) as {
            total: number;
          };
          if (total + claim.size > max) return refused;
        }
        // A blob the tape references already costs nothing more (a redeploy's unchanged files):
        // only a new one pays for the sum over the tape's blobs.
        if (
          inserted &&
          limits.maxTapeBytes !== undefined &&
          this.tapeHas.get(claim.tape, claim.commitment) === undefined
        ) {
          const { total } = this.tapeBytes.get(claim.tape) as { total: number };
          if (total + claim.size > limits.maxTapeBytes) return refused;
        }
        this.insert(claim, now);
        return { accepted: true, inserted, recordedAt: now };
      },
    );
    this.claimManyTx = this.db.transaction((claims: TrackClaim[], now: number) => {
      for (const claim of claims) this.insert(claim, now);
    });
  }

  /**
   * Records (or refreshes) a reference. With `maxOwnerSegmentBytes`, a segment is refused
   * (false, nothing recorded) when the owner's other segments plus this one would pass it; with
   * `maxTapeBytes`, a new reference is refused when the distinct blobs the tape's owners
   * reference plus this one (unless already among them) would pass it.
   */
  claim(claim: TrackClaim, limits: ClaimLimits = {}, now = Date.now()): ClaimOutcome {
    return this.claimTx.immediate(claim, limits, now);
  }

  /** Records (or refreshes) many references in one transaction, with no limit. */
  claimMany(claims: TrackClaim[], now = Date.now()): void {
    this.claimManyTx.immediate(claims, now);
  }

  /** Every blob this tape's owners reference, with those references only (not other tapes'). */
  referencesOfTape(tape: string): ReferencedBlob[] {
    const blobs: ReferencedBlob[] = [];
    for (const row of this.ofTape.all(tape) as Row[]) {
      const last = blobs[blobs.length - 1];
      if (last?.commitment.equals(row.commitment)) last.references.push(toReference(row));
      else blobs.push({ commitment: row.commitment, references: [toReference(row)] });
    }
    return blobs;
  }

  /** Withdraws a reference this claim inserted, unless another upload refreshed it since. */
  unclaim(claim: TrackClaim, recordedAt: number): void {
    this.unclaimOne.run(claim.commitment, claim.track, ROLE_CODE[claim.role], recordedAt);
  }

  /** Up to `limit` referenced commitments after `after` (byte order), with their references. */
  list(
    after: Buffer | undefined,
    limit: number,
  ): { commitment: Buffer; references: TrackReference[] }[] {
    const rows = (after ? this.page.all(after, limit) : this.firstPage.all(limit)) as {
      commitment: Buffer;
    }[];
    return rows.map(({ commitment }) => ({
      commitment,
      references: this.referencesOf(commitment),
    }));
  }

  referencesOf(commitment: Buffer): TrackReference[] {
    return (this.ofCommitment.all(commitment) as Row[]).map(toReference);
  }

  /** Drops these references unless one was recorded at or after `before` (a fresh upload). */
  drop(commitment: Buffer, references: TrackReference[], before: number): void {
    this.db.transaction(() => {
      for (const r of references) this.dropOne.run(commitment, r.track, ROLE_CODE[r.role], before);
    })();
  }

  dropCommitment(commitment: Buffer): void {
    this.dropAll.run(commitment);
  }

  referenceCount(commitment: Buffer): number {
    return (this.count.get(commitment) as { n: number }).n;
  }

  close(): void {
    this.db.close();
  }

  private insert(claim: TrackClaim, now: number): void {
    this.upsert.run(
      claim.commitment,
      claim.track,
      claim.tape,
      ROLE_CODE[claim.role],
      claim.size,
      now,
    );
  }
}

function toReference(row: Row): TrackReference {
  return {
    track: row.owner,
    tape: row.tape,
    role: ROLE_NAME[row.role],
    size: row.size,
    recordedAt: row.recorded_at,
  };
}
