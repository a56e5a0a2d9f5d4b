import type BetterSqlite3 from 'better-sqlite3';

/**
 * SQLite for the gateway's databases (the ledger, track references, S3 credentials), over one
 * of two drivers with the same behaviour:
 *
 * - `node:sqlite`, Node's own (22.13 and later, 24): no native addon to build.
 * - `better-sqlite3` (12.x), on Node 20, which has no `node:sqlite`. On Node 24 it cannot be used:
 *   its statements' destructor trips a Node 24 assertion when garbage-collected and aborts the
 *   process (`RemoveEnvironmentCleanupHook … (env) != nullptr`; its 13.x, which fixes it, no
 *   longer supports Node 20).
 *
 * `TAPE_SQLITE_DRIVER=better-sqlite3|node:sqlite` forces one (benchmarks, tests). Measured write
 * paths of both: docs/operator.md, "SQLite".
 */
export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3';

export interface RunResult {
  changes: number | bigint;
  lastInsertRowid: number | bigint;
}

/** Positional values, or one object of named values (`@name` in the SQL). */
type Params = unknown[];

export interface SqliteStatement<P extends Params = Params, R = unknown> {
  run(...params: P): RunResult;
  get(...params: P): R | undefined;
  all(...params: P): R[];
  iterate(...params: P): IterableIterator<R>;
  /** Integers read as BigInt (for values past 2^53). */
  safeIntegers(on?: boolean): this;
}

/** A function run in one SQLite transaction; `immediate` takes the write lock at BEGIN. */
export interface SqliteTransaction<F extends (...args: never[]) => unknown> {
  (...args: Parameters<F>): ReturnType<F>;
  immediate(...args: Parameters<F>): ReturnType<F>;
}

export interface SqliteDatabase {
  readonly driver: SqliteDriverName;
  readonly open: boolean;
  exec(sql: string): void;
  /** `PRAGMA <text>`; returns the rows it answers. */
  pragma(text: string): unknown[];
  prepare<P extends Params = Params, R = unknown>(sql: string): SqliteStatement<P, R>;
  /** Nested calls run as savepoints, as better-sqlite3's do. */
  transaction<F extends (...args: never[]) => unknown>(fn: F): SqliteTransaction<F>;
  close(): void;
}

/**
 * The part of `node:sqlite` used here (the project's @types/node is Node 20's, which has none).
 */
interface StatementSync {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Record<string, unknown>[];
  iterate(...params: unknown[]): IterableIterator<Record<string, unknown>>;
  setReadBigInts(on: boolean): void;
}
interface DatabaseSync {
  readonly isOpen: boolean;
  readonly isTransaction: boolean;
  exec(sql: string): void;
  prepare(sql: string): StatementSync;
  close(): void;
}
interface NodeSqlite {
  DatabaseSync: new (path: string) => DatabaseSync;
}

/** `node:sqlite` when this Node has it unflagged, else undefined. */
function nodeSqlite(): NodeSqlite | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('node:sqlite') as NodeSqlite;
  } catch {
    return undefined; // Node 20, or 22 before 22.13 without --experimental-sqlite
  }
}

/** The driver `openSqlite` uses in this process. */
export function sqliteDriver(env: NodeJS.ProcessEnv = process.env): SqliteDriverName {
  const forced = env.TAPE_SQLITE_DRIVER;
  if (forced === 'node:sqlite' || forced === 'better-sqlite3') return forced;
  if (forced) {
    throw new Error(`TAPE_SQLITE_DRIVER: expected node:sqlite or better-sqlite3, got '${forced}'`);
  }
  return nodeSqlite() ? 'node:sqlite' : 'better-sqlite3';
}

export function openSqlite(path: string, driver = sqliteDriver()): SqliteDatabase {
  if (driver === 'node:sqlite') {
    const sqlite = nodeSqlite();
    if (!sqlite) throw new Error(`node:sqlite is not available in Node ${process.version}`);
    return new NodeSqliteDatabase(new sqlite.DatabaseSync(path));
  }
  // Loaded only here: on Node 24 the addon is never loaded.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Better = require('better-sqlite3') as typeof BetterSqlite3;
  return new BetterSqliteDatabase(new Better(path));
}

class BetterSqliteDatabase implements SqliteDatabase {
  readonly driver = 'better-sqlite3';

  constructor(private readonly db: BetterSqlite3.Database) {
    // Integers as numbers unless a statement asks for BigInt (as node:sqlite does).
    db.defaultSafeIntegers(false);
  }

  get open(): boolean {
    return this.db.open;
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  pragma(text: string): unknown[] {
    return this.db.pragma(text) as unknown[];
  }

  prepare<P extends Params, R>(sql: string): SqliteStatement<P, R> {
    return this.db.prepare(sql) as unknown as SqliteStatement<P, R>;
  }

  transaction<F extends (...args: never[]) => unknown>(fn: F): SqliteTransaction<F> {
    return this.db.transaction(
      fn as unknown as (...args: unknown[]) => unknown,
    ) as unknown as SqliteTransaction<F>;
  }

  close(): void {
    this.db.close();
  }
}

class NodeSqliteDatabase implements SqliteDatabase {
  readonly driver = 'node:sqlite';
  private readonly begin: Record<'deferred' | 'immediate', StatementSync>;
  private readonly commit: StatementSync;
  private readonly rollback: StatementSync;
  private depth = 0;

  constructor(private readonly db: DatabaseSync) {
    this.begin = {
      deferred: db.prepare('BEGIN'),
      immediate: db.prepare('BEGIN IMMEDIATE'),
    };
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
  }

  get open(): boolean {
    return this.db.isOpen;
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  pragma(text: string): unknown[] {
    const rows = this.db.prepare(`PRAGMA ${text}`).all();
    // better-sqlite3's SQLite is built with SQLITE_DEFAULT_WAL_SYNCHRONOUS=1: a database put in
    // WAL mode syncs at checkpoints, not at every commit (a commit survives a killed process,
    // an OS crash may lose the last ones). Node's is not (every commit an fsync: 20 times
    // slower here); the same setting keeps the same durability on both drivers.
    if (/^journal_mode\s*=\s*wal$/i.test(text.trim())) this.db.exec('PRAGMA synchronous = NORMAL');
    return rows;
  }

  prepare<P extends Params, R>(sql: string): SqliteStatement<P, R> {
    return new NodeSqliteStatement<P, R>(this.db.prepare(sql));
  }

  transaction<F extends (...args: never[]) => unknown>(fn: F): SqliteTransaction<F> {
    const run = (mode: 'deferred' | 'immediate', args: Parameters<F>): ReturnType<F> => {
      // Inside another transaction: a savepoint, released or rolled back on its own.
      if (this.depth > 0) {
        const name = `tape_sp_${this.depth}`;
        this.db.exec(`SAVEPOINT ${name}`);
        this.depth++;
        try {
          const result = fn(...args) as ReturnType<F>;
          this.db.exec(`RELEASE ${name}`);
          return result;
        } catch (err) {
          this.db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
          throw err;
        } finally {
          this.depth--;
        }
      }
      this.begin[mode].run();
      this.depth++;
      try {
        const result = fn(...args) as ReturnType<F>;
        this.commit.run();
        return result;
      } catch (err) {
        if (this.db.isTransaction) this.rollback.run();
        throw err;
      } finally {
        this.depth--;
      }
    };
    const tx = ((...args: Parameters<F>) => run('deferred', args)) as SqliteTransaction<F>;
    tx.immediate = (...args: Parameters<F>) => run('immediate', args);
    return tx;
  }

  close(): void {
    this.db.close();
  }
}

/**
 * node:sqlite's statement with better-sqlite3's results: BLOBs as Buffers (node:sqlite gives
 * Uint8Arrays; the callers compare, slice and decode Buffers), rows as plain objects.
 */
class NodeSqliteStatement<P extends Params, R> implements SqliteStatement<P, R> {
  constructor(private readonly stmt: StatementSync) {}

  run(...params: P): RunResult {
    return this.stmt.run(...params);
  }

  get(...params: P): R | undefined {
    const row = this.stmt.get(...params);
    return row === undefined ? undefined : (toRow(row) as R);
  }

  all(...params: P): R[] {
    return this.stmt.all(...params).map((row) => toRow(row) as R);
  }

  *iterate(...params: P): IterableIterator<R> {
    for (const row of this.stmt.iterate(...params)) yield toRow(row) as R;
  }

  safeIntegers(on = true): this {
    this.stmt.setReadBigInts(on);
    return this;
  }
}

function toRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in row) {
    const value = row[key];
    out[key] =
      value instanceof Uint8Array
        ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
        : value;
  }
  return out;
}
