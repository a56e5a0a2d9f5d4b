import { existsSync } from 'node:fs';
import { basename, join, sep } from 'node:path';
import { installCodeCache } from './code-cache';

/**
 * Imported first by the entry points (src/cli.ts, src/main.ts), before any other module loads:
 * the process's modules compile through the code cache (code-cache.ts), kept in the package's
 * `node_modules/.cache/tape-code-cache`. Only when the process was started from the package's
 * own `dist/` or `bin/` (not in a test runner that imports an entry point's module).
 */
const packageRoot = join(__dirname, '..', '..');
const entry = require.main?.filename ?? '';
const ownEntry = [join(packageRoot, 'dist') + sep, join(packageRoot, 'bin') + sep].some((dir) =>
  entry.startsWith(dir),
);
const modules = join(packageRoot, 'node_modules');
if (ownEntry && existsSync(modules)) {
  installCodeCache(basename(entry, '.js'), join(modules, '.cache', 'tape-code-cache'));
}
