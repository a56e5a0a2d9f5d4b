import { createHash } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants as fsConstants,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import Module from 'node:module';
import { dirname, join } from 'node:path';
import { constants as vmConstants, Script } from 'node:vm';

/**
 * A V8 code cache for the package's own processes (`tape`, the gateway): most of their start-up
 * is V8 compiling the modules they load (Nest, rxjs, web3.js, class-validator), the same on
 * every start. Node 20 has no module compile cache (Node 22's `module.enableCompileCache`), so
 * CommonJS modules are compiled here with `vm.Script` and the code V8 made for them, taken once
 * the process has run (so it holds the functions compiled lazily too, which a cache made at
 * compile time does not), is kept in one file per entry, Node version and flag set, and given
 * back to V8 on the next start.
 *
 * Safety: an entry is used only for a module whose source has the same SHA-1 (V8 itself checks
 * only the source's length); V8 rejects data made by another V8 or with other flags, and a
 * rejected or unreadable entry just compiles the module from source. The file is written only
 * when a module missed, to a temporary name then renamed, merged with what another process
 * wrote meanwhile; it is read only when this user owns it. Any failure leaves the process as it
 * would be without the cache. `TAPE_CODE_CACHE=off` turns it off.
 */

interface CjsModule {
  exports: unknown;
  filename: string;
  require(id: string): unknown;
}
type Compile = (this: CjsModule, content: string, filename: string, format?: string) => unknown;
interface ModuleInternals {
  prototype: { _compile: Compile };
  wrap(content: string): string;
  _resolveFilename(request: string, parent: CjsModule, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: CjsModule): string[] | null;
  _extensions: NodeJS.RequireExtensions;
  _cache: NodeJS.Dict<NodeModule>;
}

/** An entry of the cache file: a module's path, its source's SHA-1, V8's data for it. */
interface Entry {
  hash: string;
  data: Buffer;
}

const MAGIC = 'tape-code-cache/1\n';
/** A file larger than this (entries of modules long gone pile up) reads as empty: rewritten. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;
const DYNAMIC_IMPORT = /\bimport\s*(?:\/\*[\s\S]*?\*\/\s*)?\(/;

export interface CodeCacheStats {
  /** Modules compiled with V8's data from the file. */
  hits: number;
  /** Modules compiled from source (no entry, another source, or V8 refused the data). */
  misses: number;
  /** Modules left to Node's own compile (an import() in their text). */
  passed: number;
  file: string;
}

let installed: CodeCacheStats | undefined;

/** What the installed cache did so far (undefined when it is not installed). */
export function codeCacheStats(): CodeCacheStats | undefined {
  return installed === undefined ? undefined : { ...installed };
}

/**
 * Compiles every CommonJS module loaded from now on through the cache in `dir`, under `name`
 * (one file per entry point). Returns false, changing nothing, when turned off.
 */
export function installCodeCache(name: string, dir: string): boolean {
  if (installed !== undefined || process.env.TAPE_CODE_CACHE === 'off') return false;
  const flags = createHash('sha1').update(process.execArgv.join('\0')).digest('hex').slice(0, 8);
  const file = join(dir, `${name}-${process.version}-${process.arch}-${flags}.bin`);
  const stats: CodeCacheStats = { hits: 0, misses: 0, passed: 0, file };
  const known = readCacheFile(file);
  const compiled = new Map<string, { hash: string; script: Script }>();
  const internals = Module as unknown as ModuleInternals;
  const original = internals.prototype._compile;

  internals.prototype._compile = function compile(content, filename, format) {
    // V8 does not keep the dynamic-import host options with cached code (an import() there
    // fails: nodejs/node#43663), so a module with an import() anywhere in its text, even in a
    // string or a comment, is compiled by Node as usual.
    if (format === 'module' || DYNAMIC_IMPORT.test(content)) {
      stats.passed++;
      return original.call(this, content, filename, format);
    }
    // A hashbang is valid only at the very start of a script, not inside the wrapper.
    const source = content.startsWith('#!') ? `//${content.slice(2)}` : content;
    const hash = createHash('sha1').update(source).digest('base64');
    const entry = known.get(filename);
    // Used once: a long-running gateway does not keep V8's data for modules it has loaded.
    known.delete(filename);
    const cachedData = entry?.hash === hash ? entry.data : undefined;
    const script = new Script(internals.wrap(source), {
      filename,
      cachedData,
      importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    if (cachedData === undefined || script.cachedDataRejected === true) stats.misses++;
    else stats.hits++;
    compiled.set(filename, { hash, script });
    const wrapper = script.runInThisContext({ displayErrors: true }) as (
      ...args: unknown[]
    ) => unknown;
    return wrapper.call(
      this.exports,
      this.exports,
      requireFor(this, internals),
      this,
      filename,
      dirname(filename),
    );
  };
  installed = stats;

  process.once('exit', () => {
    if (stats.misses === 0) return;
    try {
      // A directory this process cannot write (a read-only install): no data is made for it.
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      accessSync(dir, fsConstants.W_OK);
      // What other processes wrote since this one started, then this one's modules.
      const merged = readCacheFile(file);
      for (const [path, { hash, script }] of compiled) {
        merged.set(path, { hash, data: script.createCachedData() });
      }
      writeCacheFile(file, merged);
    } catch {
      // Only the next start is slower.
    }
  });
  return true;
}

/** The `require` Node gives a module (lib/internal/modules/helpers.js, makeRequireFunction). */
function requireFor(mod: CjsModule, internals: ModuleInternals): NodeJS.Require {
  // Bound, not a closure of ours: Node 22+ warns about deprecated built-ins (`punycode`, DEP0040)
  // unless the first frame outside Node is in node_modules, and a closure here would be that
  // frame for every dependency.
  const require = mod.require.bind(mod) as NodeJS.Require;
  const resolve = ((request: string, options?: unknown) =>
    internals._resolveFilename(request, mod, false, options)) as NodeJS.RequireResolve;
  resolve.paths = (request: string) => internals._resolveLookupPaths(request, mod);
  require.resolve = resolve;
  require.main = process.mainModule;
  require.extensions = internals._extensions;
  require.cache = internals._cache;
  return require;
}

/**
 * The file: MAGIC, a JSON index ([path, hash, length][]) after its byte length (uint32 LE),
 * then the data of each entry in index order. Anything else reads as an empty cache.
 */
function readCacheFile(file: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const st = fstatSync(fd);
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return entries;
    if (st.size > MAX_FILE_BYTES) return entries;
    const buf = Buffer.allocUnsafe(st.size);
    if (readSync(fd, buf, 0, st.size, 0) !== st.size) return entries;
    if (buf.toString('latin1', 0, MAGIC.length) !== MAGIC) return entries;
    const indexLength = buf.readUInt32LE(MAGIC.length);
    let offset = MAGIC.length + 4;
    const index = JSON.parse(buf.toString('utf8', offset, offset + indexLength)) as unknown;
    offset += indexLength;
    if (!Array.isArray(index)) return entries;
    const parsed = new Map<string, Entry>();
    for (const item of index as unknown[]) {
      if (!Array.isArray(item) || item.length !== 3) return entries;
      const [path, hash, length] = item as unknown[];
      if (typeof path !== 'string' || typeof hash !== 'string' || !Number.isSafeInteger(length))
        return entries;
      const end = offset + (length as number);
      if ((length as number) < 0 || end > buf.length) return entries;
      // A copy, so that the file's buffer is not kept alive by the entries never used.
      parsed.set(path, { hash, data: Buffer.from(buf.subarray(offset, end)) });
      offset = end;
    }
    return offset === buf.length ? parsed : entries;
  } catch {
    return entries;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function writeCacheFile(file: string, entries: Map<string, Entry>): void {
  const index: [string, string, number][] = [];
  const data: Buffer[] = [];
  for (const [path, { hash, data: bytes }] of entries) {
    index.push([path, hash, bytes.length]);
    data.push(bytes);
  }
  const indexBytes = Buffer.from(JSON.stringify(index));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(indexBytes.length);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(
      temp,
      Buffer.concat([Buffer.from(MAGIC, 'latin1'), length, indexBytes, ...data]),
      // Created here, never written through a file or link already at that name.
      { mode: 0o600, flag: 'wx' },
    );
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
