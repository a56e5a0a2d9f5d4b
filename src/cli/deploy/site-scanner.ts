import { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { MAX_NAME_BYTES } from '../../versions/version-entry';
import { contentTypeOf } from '../../versions/content-type';
import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';
import type { FileStamp } from './hash-cache';

export const ENTRY_NAME = 'index.html';

/** A file of the site: its object name (relative path, `/` separators) and where it is on disk. */
export interface SiteFile {
  name: string;
  path: string;
  size: number;
  contentType: string;
  /** What the hash cache checks (hash-cache.ts): size, mtime in ns, inode, from lstat. */
  stamp: FileStamp;
}

export interface ScannedSite {
  root: string;
  files: SiteFile[];
  /** Hidden files and directories left out (first path segment that starts with `.`). */
  hidden: string[];
}

/**
 * Reads the site directory of `indexPath`. Names are the relative paths exactly as the file
 * system spells them (no Unicode normalisation: the name a browser asks for is the one on disk).
 * Anything starting with `.` is left out at every depth, so `.well-known/`, `.git/` and `.env`
 * are never published. A visible symlink or special file fails the whole scan before anything
 * is uploaded: following links could publish files from outside the directory.
 */
export async function scanSite(indexPath: string): Promise<ScannedSite> {
  const entry = resolve(indexPath);
  if (basename(entry) !== ENTRY_NAME) {
    throw new CliError(`no index.html at ${indexPath}: give the path of the site's index.html`);
  }
  let stat;
  try {
    stat = await lstat(entry);
  } catch {
    throw new CliError(`no index.html at ${indexPath}`);
  }
  if (stat.isSymbolicLink()) throw new CliError(`symlink not allowed: ${ENTRY_NAME}`);
  if (!stat.isFile()) throw new CliError(`no index.html at ${indexPath} (not a regular file)`);
  const root = dirname(entry);
  const files: SiteFile[] = [];
  const hidden: string[] = [];
  const problems: string[] = [];
  await walk(root, '', files, hidden, problems);
  if (problems.length > 0) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    throw new CliError(`${problems[0]}${more}; nothing was uploaded`);
  }
  files.sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
  return { root, files, hidden };
}

async function walk(
  dir: string,
  prefix: string,
  files: SiteFile[],
  hidden: string[],
  problems: string[],
): Promise<void> {
  let entries: Dirent<Buffer>[];
  try {
    entries = await readdir(dir, { withFileTypes: true, encoding: 'buffer' });
  } catch (err) {
    throw new CliError(`cannot read directory ${dir} (${(err as NodeJS.ErrnoException).code})`);
  }
  for (const dirent of entries) {
    const rawName = dirent.name;
    const name = decodeName(rawName);
    const label = prefix + (name ?? printable(rawName.toString('utf8')));
    if (name === null) {
      problems.push(`file name is not valid UTF-8: ${label}`);
      continue;
    }
    if (name.startsWith('.')) {
      hidden.push(label + (dirent.isDirectory() ? '/' : ''));
      continue;
    }
    const path = join(dir, name);
    if (dirent.isSymbolicLink()) {
      problems.push(`symlink not allowed: ${label}`);
    } else if (dirent.isDirectory()) {
      await walk(path, `${label}/`, files, hidden, problems);
    } else if (dirent.isFile()) {
      const problem = nameProblem(label);
      if (problem) {
        problems.push(problem);
        continue;
      }
      const stat = await lstat(path, { bigint: true });
      const stamp = { size: Number(stat.size), mtimeNs: stat.mtimeNs, ino: stat.ino };
      files.push({ name: label, path, size: stamp.size, contentType: contentTypeOf(label), stamp });
    } else {
      problems.push(`not a regular file: ${label}`);
    }
  }
}

/** Content type from the extension, `; charset=utf-8` on text types (mime-types' rule). */
function decodeName(raw: Buffer): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return null;
  }
}

function nameProblem(name: string): string | null {
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) {
    return `name longer than ${MAX_NAME_BYTES} bytes: ${printable(name)}`;
  }
  // Control characters cannot be asked for in a URL path and break terminals that print them.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name))
    return `name with a control character: ${printable(name)}`;
  return null;
}
