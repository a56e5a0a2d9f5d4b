import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { ChangedFile } from '../../versions/version-planner';

/**
 * `tape deploy`'s hash cache (docs/cli.md, "The hash cache"): what each file of a site hashed to
 * last time, so a redeploy reads only the files that changed. One JSON file per site directory
 * and segment size under the user's cache directory; an entry is used only when the file's size,
 * mtime (ns) and inode are the ones it was hashed with. Safe to delete; an unreadable or
 * malformed file is ignored (everything is hashed again), and a cache that cannot be written
 * costs nothing but the next deploy's hashing.
 */

/** What lstat says of a file: the cache's key beside its path. */
export interface FileStamp {
  size: number;
  mtimeNs: bigint;
  ino: bigint;
}

/** What a file hashed to: its name's commitment and how it is stored. */
export interface CachedHash {
  commitment: Buffer;
  layout: ChangedFile['layout'];
}

const FORMAT = 'tape-hash-cache-1';

/**
 * A file modified within this long before it was read may change again within the same mtime
 * tick without its stamp changing ("racily clean", as git calls it): it is hashed, not cached.
 */
export const RACY_WINDOW_MS = 1000;

/** Entries: name → [size, mtime ns, inode, commitment hex, manifest bytes or -1 for a blob]. */
type Row = [number, string, string, string, number];

interface CacheFile {
  format: string;
  root: string;
  segmentBytes: number;
  files: Record<string, Row>;
}

/** `$XDG_CACHE_HOME/tape`, else `~/.cache/tape` (the XDG base directory default). */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.cache'), 'tape');
}

export class HashCache {
  private readonly fresh = new Map<string, Row>();

  private constructor(
    readonly file: string,
    private readonly root: string,
    private readonly segmentBytes: number,
    private readonly old: Map<string, Row>,
  ) {}

  /** The cache of the site at `root` (absolute) hashed with `segmentBytes`; empty if unreadable. */
  static async open(cacheDir: string, root: string, segmentBytes: number): Promise<HashCache> {
    const id = createHash('sha256').update(`${root}\0${segmentBytes}`).digest('hex').slice(0, 32);
    const file = join(cacheDir, 'deploy-hashes', `${id}.json`);
    return new HashCache(file, root, segmentBytes, await readRows(file, root, segmentBytes));
  }

  /** The cached hash of `name` if its file still has the stamp it was hashed with. */
  get(name: string, stamp: FileStamp): CachedHash | undefined {
    const row = this.old.get(name);
    if (!row || !sameStamp(row, stamp)) return undefined;
    this.fresh.set(name, row);
    return {
      commitment: Buffer.from(row[3], 'hex'),
      layout: row[4] < 0 ? { kind: 'blob' } : { kind: 'stream', manifestBytes: row[4] },
    };
  }

  /** Records a hash made now (`readStartMs`: when the file's read began, Date.now()). */
  set(name: string, stamp: FileStamp, hash: CachedHash, readStartMs: number): void {
    if (Number(stamp.mtimeNs / 1_000_000n) > readStartMs - RACY_WINDOW_MS) {
      this.fresh.delete(name);
      return;
    }
    const manifest = hash.layout.kind === 'blob' ? -1 : hash.layout.manifestBytes;
    this.fresh.set(name, [
      stamp.size,
      stamp.mtimeNs.toString(),
      stamp.ino.toString(),
      hash.commitment.toString('hex'),
      manifest,
    ]);
  }

  /**
   * Writes the entries used or made since `open` (files gone from the site are dropped), through
   * a temporary file and a rename so a reader never sees half a file. Never throws.
   */
  async save(): Promise<boolean> {
    const body: CacheFile = {
      format: FORMAT,
      root: this.root,
      segmentBytes: this.segmentBytes,
      files: Object.fromEntries(this.fresh),
    };
    const temp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await mkdir(join(this.file, '..'), { recursive: true, mode: 0o700 });
      await writeFile(temp, JSON.stringify(body), { flag: 'wx', mode: 0o600 });
      await rename(temp, this.file);
      return true;
    } catch {
      await rm(temp, { force: true }).catch(() => undefined);
      return false;
    }
  }
}

function sameStamp(row: Row, stamp: FileStamp): boolean {
  return (
    row[0] === stamp.size && row[1] === stamp.mtimeNs.toString() && row[2] === stamp.ino.toString()
  );
}

async function readRows(
  file: string,
  root: string,
  segmentBytes: number,
): Promise<Map<string, Row>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return new Map();
  }
  const body = parsed as Partial<CacheFile> | null;
  if (
    typeof body !== 'object' ||
    body === null ||
    body.format !== FORMAT ||
    body.root !== root ||
    body.segmentBytes !== segmentBytes ||
    typeof body.files !== 'object' ||
    body.files === null
  ) {
    return new Map();
  }
  const rows = new Map<string, Row>();
  for (const [name, row] of Object.entries(body.files)) {
    if (isRow(row)) rows.set(name, row);
  }
  return rows;
}

function isRow(row: unknown): row is Row {
  return (
    Array.isArray(row) &&
    row.length === 5 &&
    Number.isSafeInteger(row[0]) &&
    typeof row[1] === 'string' &&
    /^\d+$/.test(row[1]) &&
    typeof row[2] === 'string' &&
    /^\d+$/.test(row[2]) &&
    typeof row[3] === 'string' &&
    /^[0-9a-f]{64}$/.test(row[3]) &&
    Number.isSafeInteger(row[4]) &&
    (row[4] as number) >= -1
  );
}
