import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, SqliteDatabase, sqliteDriver, SqliteDriverName } from './sqlite';

/** node:sqlite where this Node has it (22.13+), better-sqlite3 where it does not (Node 20). */
const driver: SqliteDriverName = sqliteDriver({});

describe(`SQLite over ${driver} (Node ${process.version})`, () => {
  let dir: string;
  let db: SqliteDatabase;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-'));
    db = openSqlite(join(dir, 'db.sqlite'), driver);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (k BLOB PRIMARY KEY, n INTEGER, s TEXT)');
  });
  afterEach(() => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is node:sqlite wherever Node has it', () => {
    const hasNodeSqlite =
      Number(process.versions.node.split('.')[0]) >= 23 ||
      /^22\.(1[3-9]|[2-9]\d)\./.test(process.versions.node);
    expect(db.driver).toBe(hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3');
  });

  it('binds positional and @named values and reads BLOBs back as Buffers', () => {
    db.prepare('INSERT INTO t VALUES (?, ?, ?)').run(Buffer.from([1, 2]), 7, 'a');
    db.prepare('INSERT INTO t VALUES (@k, @n, @s)').run({ k: Buffer.from([3]), n: 8, s: 'b' });
    const rows = db
      .prepare<[], { k: Buffer; n: number; s: string }>('SELECT * FROM t ORDER BY k')
      .all();
    expect(rows).toEqual([
      { k: Buffer.from([1, 2]), n: 7, s: 'a' },
      { k: Buffer.from([3]), n: 8, s: 'b' },
    ]);
    expect(Buffer.isBuffer(rows[0].k)).toBe(true);
    expect(db.prepare('SELECT s FROM t WHERE k = ?').get(Buffer.from([3]))).toEqual({ s: 'b' });
    expect(db.prepare('SELECT s FROM t WHERE k = ?').get(Buffer.from([9]))).toBeUndefined();
    expect([...db.prepare<[], { s: string }>('SELECT s FROM t ORDER BY k').iterate()]).toEqual([
      { s: 'a' },
      { s: 'b' },
    ]);
  });

  it('reads integers as numbers, or as BigInt from a statement that asks', () => {
    db.prepare('INSERT INTO t VALUES (?, ?, ?)').run(Buffer.from([1]), 2n ** 62n, 'x');
    const big = db.prepare<[], { n: bigint }>('SELECT n FROM t').safeIntegers(true).get();
    expect(big).toEqual({ n: 2n ** 62n });
    expect(db.prepare('SELECT 5 AS five').get()).toEqual({ five: 5 });
  });

  it('commits a transaction, rolls it back on a throw, and nests as savepoints', () => {
    const insert = db.prepare('INSERT INTO t VALUES (?, ?, ?)');
    const count = () => (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
    const add = db.transaction((k: number) => {
      insert.run(Buffer.from([k]), k, 'x');
      return k;
    });
    expect(add(1)).toBe(1);
    expect(add.immediate(2)).toBe(2);
    const failing = db.transaction(() => {
      insert.run(Buffer.from([3]), 3, 'x');
      throw new Error('no');
    });
    expect(() => failing()).toThrow('no');
    expect(count()).toBe(2);
    const outer = db.transaction(() => {
      insert.run(Buffer.from([4]), 4, 'x');
      expect(() => failing()).toThrow('no'); // the inner savepoint only is undone
      add(5);
    });
    outer();
    expect(count()).toBe(4);
  });

  it('answers pragmas with rows and says when it is closed', () => {
    expect(db.pragma('journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    // WAL databases sync at checkpoints on both drivers (better-sqlite3's build default).
    expect(db.pragma('synchronous')).toEqual([{ synchronous: 1 }]);
    expect(db.open).toBe(true);
    db.close();
    expect(db.open).toBe(false);
  });
});

describe('sqliteDriver', () => {
  it('takes TAPE_SQLITE_DRIVER and refuses anything else by name', () => {
    expect(sqliteDriver({ TAPE_SQLITE_DRIVER: 'better-sqlite3' })).toBe('better-sqlite3');
    expect(sqliteDriver({ TAPE_SQLITE_DRIVER: 'node:sqlite' })).toBe('node:sqlite');
    expect(() => sqliteDriver({ TAPE_SQLITE_DRIVER: 'sqlite3' })).toThrow(
      "TAPE_SQLITE_DRIVER: expected node:sqlite or better-sqlite3, got 'sqlite3'",
    );
  });
});
