// The verifier core as ONE ES module (docs/verify.md, "In a browser"): tsc compiles
// src/verify/core/tape-verifier.ts and every file it imports (the core's own files and the
// import-free `_redirects` matching, src/versions/rules/redirect-match.ts) into
// dist/verify-module/parts/; this joins them into one file, each file after the files it
// imports, with the imports removed. The module exports what tape-verifier.ts exports (its own
// declarations and what it re-exports), nothing else: the other files' `export`s are dropped.
// The core imports nothing but relative files; an import of a package, `import * as`,
// `import { a as b }`, `export *` or an import cycle is refused, and the joined module is
// loaded once to prove it parses (two files declaring one name would not).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const out = join(import.meta.dirname, '..', 'dist', 'verify-module');
const parts = join(out, 'parts');
const entry = join(parts, 'verify', 'core', 'tape-verifier.js');

// `import … from '…';` and `export { … } from '…';` (tsc may spread the braces over lines).
const FROM = /^(import|export)\s+([^;]*?)\s+from\s+'([^']+)';\n/gm;
const BARE_IMPORT = /^import\s+'[^']*';\n/m;
const EXPORT_DECLARATION = /^export\s+(?=(?:async\s+)?function\b|const\b|let\b|class\b)/gm;
const EMPTY_EXPORT = /^export\s*\{\s*\};\n/gm;

const ordered = [];
const visiting = new Set();
const done = new Set();
const publicNames = [];

function fail(file, message) {
  throw new Error(`${relative(parts, file)}: ${message}`);
}

/** The file's text without its imports and re-exports; its dependencies first in `ordered`. */
function visit(file) {
  if (done.has(file)) return;
  if (visiting.has(file)) fail(file, 'an import cycle');
  visiting.add(file);
  const text = readFileSync(file, 'utf8');
  if (BARE_IMPORT.test(text)) fail(file, 'an import for its side effects');
  const isEntry = file === entry;
  let body = text.replace(FROM, (_, keyword, clause, specifier) => {
    if (!specifier.startsWith('.')) fail(file, `imports ${specifier}: the core imports no package`);
    const names = /^\{([^}]*)\}$/.exec(clause.trim());
    if (!names) fail(file, `${keyword} ${clause}: only named imports and exports`);
    const list = names[1]
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    if (list.some((n) => /\s/.test(n))) fail(file, `${keyword} ${clause}: renamed names`);
    if (keyword === 'export') {
      if (!isEntry) fail(file, 'only tape-verifier.ts re-exports');
      publicNames.push(...list);
    }
    visit(resolve(dirname(file), `${specifier}.js`));
    return '';
  });
  if (/^\s*(?:import|export\s*\*)\s/m.test(body)) fail(file, 'an import the bundler cannot join');
  body = body.replace(EMPTY_EXPORT, '');
  if (!isEntry) body = body.replace(EXPORT_DECLARATION, '');
  if (!isEntry && /^export\b/m.test(body)) fail(file, 'an export the bundler cannot drop');
  visiting.delete(file);
  done.add(file);
  ordered.push({ file, body: body.trim() });
}

visit(entry);
const joined = ordered
  .map(({ file, body }) => `// --- ${relative(parts, file).replace(/\.js$/, '.ts')}\n${body}\n`)
  .join('\n');
const HEADER =
  '// The tape verifier core (docs/verify.md, "In a browser"): src/verify/core joined into one\n' +
  '// dependency-free ES module by tools/bundle-verify-module.mjs; each part is marked `// ---`.\n';
const module = `${HEADER}\n${joined}\nexport { ${publicNames.join(', ')} };\n`;

// Load it once: a parse error, a name declared twice or a missing export fails the build here.
const scratch = mkdtempSync(join(tmpdir(), 'verify-module-'));
try {
  const copy = join(scratch, 'tape-verifier.mjs');
  writeFileSync(copy, module);
  const loaded = await import(pathToFileURL(copy).href);
  if (typeof loaded.verifyAnswer !== 'function') throw new Error('verifyAnswer is not exported');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
writeFileSync(join(out, 'tape-verifier.js'), module);
rmSync(parts, { recursive: true, force: true });
