import { mkdirSync, statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { PRIVATE_DIRECTORY_MODE } from './private-files';

/**
 * Creates a directory and its missing parents, like `mkdir -p`, one level at a time.
 *
 * Not `mkdirSync(path, { recursive: true })`: Node 20's recursive mkdir never returns for a
 * path under a filesystem that refuses new entries with ENOENT (`/proc/...`: it retries the
 * parent for ever), so a data or config directory set there hung the gateway or the CLI. Here
 * each missing level is created once, and a refusal is a clear error naming that level.
 *
 * New levels are owner-only unless `mode` says otherwise: every directory the project makes
 * holds private state (private-files.ts).
 */
export function makeDirectory(path: string, mode = PRIVATE_DIRECTORY_MODE): void {
  for (const dir of missingLevels(path, statIfAny)) {
    try {
      mkdirSync(dir, { mode });
    } catch (err) {
      if (codeOf(err) !== 'EEXIST') throw refused(dir, err);
    }
  }
}

/** `makeDirectory`, without blocking the event loop. */
export async function makeDirectoryAsync(
  path: string,
  mode = PRIVATE_DIRECTORY_MODE,
): Promise<void> {
  const stats = new Map<string, Awaited<ReturnType<typeof stat>> | undefined>();
  // The levels are few: stat them up front, then walk them synchronously.
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    const found = await stat(dir).catch((err: unknown) => {
      if (codeOf(err) === 'ENOENT' || codeOf(err) === 'ENOTDIR') return undefined;
      throw err;
    });
    stats.set(dir, found);
    if (found !== undefined || dirname(dir) === dir) break;
  }
  for (const dir of missingLevels(path, (p) => stats.get(p))) {
    try {
      await mkdir(dir, { mode });
    } catch (err) {
      if (codeOf(err) !== 'EEXIST') throw refused(dir, err);
    }
  }
}

type Stat = { isDirectory(): boolean } | undefined;

function statIfAny(path: string): Stat {
  try {
    return statSync(path);
  } catch (err) {
    if (codeOf(err) === 'ENOENT' || codeOf(err) === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** The levels of `path` that do not exist yet, outermost first; a file in the way is an error. */
function missingLevels(path: string, statOf: (path: string) => Stat): string[] {
  const missing: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    const found = statOf(dir);
    if (found !== undefined) {
      if (!found.isDirectory())
        throw withCode(
          `cannot create directory ${path}: ${dir} is not a directory (ENOTDIR)`,
          'ENOTDIR',
        );
      break;
    }
    missing.push(dir);
    if (dirname(dir) === dir) break;
  }
  return missing.reverse();
}

function refused(dir: string, err: unknown): Error {
  const code = codeOf(err);
  return withCode(`cannot create directory ${dir}: ${code ?? (err as Error).message}`, code);
}

/** An error that keeps the system's code (callers report `code`, as for Node's own). */
function withCode(message: string, code: string | undefined): NodeJS.ErrnoException {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

function codeOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}
