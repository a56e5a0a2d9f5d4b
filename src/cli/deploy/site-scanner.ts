import { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { WELL_KNOWN_DIR } from '../../chain/hidden-names';
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
  /**
   * Files under the root's `.well-known/` (no hidden segment below it), not published unless
   * the gateway allows their name (well-known-files.ts); a symlink or special file there is
   * listed with its problem, which matters only when its name is allowed.
   */
  wellKnown: WellKnownCandidate[];
}

export type WellKnownCandidate = SiteFile | { name: string; problem: string };

/**
 * Reads the site directory given as the directory itself or as the path of its `index.html`.
 * Names are the relative paths exactly as the file system spells them (no Unicode
 * normalisation: the name a browser asks for is the one on disk). Anything starting with `.` is
 * left out at every depth, so `.well-known/`, `.git/` and `.env` are never published (the
 * root's `.well-known/` files are listed apart, for a gateway that allows some). A visible
 * symlink or special file fails the whole scan before anything is uploaded: following links
 * could publish files from outside the directory.
 */
export async function scanSite(sitePath: string): Promise<ScannedSite> {
  const root = await siteRoot(sitePath);
  const files: SiteFile[] = [];
  const hidden: string[] = [];
  const problems: ScanProblem[] = [];
  await walk(root, '', files, hidden, problems);
  if (problems.length > 0) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    throw new CliError(`${problems[0].text}${more}; nothing was uploaded`);
  }
  files.sort(byName);
  const wellKnown = await scanWellKnown(root, hidden);
  return { root, files, hidden, wellKnown };
}

/**
 * The site directory of `sitePath`: the directory itself (it must hold an `index.html`), or the
 * directory of the `index.html` named. Anything else is refused with what was found instead.
 */
async function siteRoot(sitePath: string): Promise<string> {
  const given = resolve(sitePath);
  const found = await lstatOrNull(given);
  if (found === null) {
    throw new CliError(
      `no such file or directory: ${sitePath} (give the site's directory or its index.html)`,
    );
  }
  let root: string;
  if (basename(given) === ENTRY_NAME) {
    root = dirname(given);
  } else if (found.isDirectory()) {
    root = given;
  } else {
    throw new CliError(
      `${sitePath} is not a site directory or its index.html (give the site's directory or its index.html)`,
    );
  }
  const entry = join(root, ENTRY_NAME);
  const stat = root === given ? await lstatOrNull(entry) : found;
  if (stat === null) {
    throw new CliError(`no index.html in ${sitePath} (a site directory has one at its top)`);
  }
  if (stat.isSymbolicLink()) throw new CliError(`symlink not allowed: ${ENTRY_NAME}`);
  if (!stat.isFile()) {
    throw new CliError(`no index.html at ${entry} (not a regular file)`);
  }
  return root;
}

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch {
    return null;
  }
}

/** Files below the root's `.well-known/`, hidden ones (`.well-known/.x`) left out. */
async function scanWellKnown(root: string, hidden: string[]): Promise<WellKnownCandidate[]> {
  if (!hidden.includes(`${WELL_KNOWN_DIR}/`)) return [];
  const files: SiteFile[] = [];
  const problems: ScanProblem[] = [];
  await walk(join(root, WELL_KNOWN_DIR), `${WELL_KNOWN_DIR}/`, files, [], problems);
  const candidates: WellKnownCandidate[] = [
    ...files,
    ...problems.map((p) => ({ name: p.name, problem: p.text })),
  ];
  return candidates.sort(byName);
}

function byName(a: { name: string }, b: { name: string }): number {
  return Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));
}

/** A file that fails the scan: its name, and the line that says why. */
interface ScanProblem {
  name: string;
  text: string;
}

async function walk(
  dir: string,
  prefix: string,
  files: SiteFile[],
  hidden: string[],
  problems: ScanProblem[],
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
      problems.push({ name: label, text: `file name is not valid UTF-8: ${label}` });
      continue;
    }
    if (name.startsWith('.')) {
      hidden.push(label + (dirent.isDirectory() ? '/' : ''));
      continue;
    }
    const path = join(dir, name);
    if (dirent.isSymbolicLink()) {
      problems.push({ name: label, text: `symlink not allowed: ${label}` });
    } else if (dirent.isDirectory()) {
      await walk(path, `${label}/`, files, hidden, problems);
    } else if (dirent.isFile()) {
      const problem = nameProblem(label);
      if (problem) {
        problems.push({ name: label, text: problem });
        continue;
      }
      const stat = await lstat(path, { bigint: true });
      const stamp = { size: Number(stat.size), mtimeNs: stat.mtimeNs, ino: stat.ino };
      files.push({ name: label, path, size: stamp.size, contentType: contentTypeOf(label), stamp });
    } else {
      problems.push({ name: label, text: `not a regular file: ${label}` });
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
