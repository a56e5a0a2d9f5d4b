// The verifier core as ONE ES module (docs/verify.md, "In a browser"): tsc compiles
// src/verify/core/tape-verifier.ts and its one import, the import-free `_redirects` matching
// (src/versions/rules/redirect-match.ts), into dist/verify-module/parts/; this inlines the
// matching in place of the core's import so that the gateway serves a single file.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const out = join(import.meta.dirname, '..', 'dist', 'verify-module');
const parts = join(out, 'parts');
const core = readFileSync(join(parts, 'verify', 'core', 'tape-verifier.js'), 'utf8');
const matching = readFileSync(join(parts, 'versions', 'rules', 'redirect-match.js'), 'utf8');
if (/^\s*import\s/m.test(matching)) throw new Error('redirect-match.ts must import nothing');
const IMPORTS =
  /^(?:import|export)\s[^;]*?from\s+'\.\.\/\.\.\/versions\/rules\/redirect-match';\n/gm;
const found = core.match(IMPORTS) ?? [];
if (found.length === 0) throw new Error('tape-verifier.ts no longer imports redirect-match');
const rest = core.replace(IMPORTS, '');
if (/^\s*import\s/m.test(rest)) throw new Error('tape-verifier.ts must import nothing else');
writeFileSync(join(out, 'tape-verifier.js'), `${matching}\n${rest}`);
rmSync(parts, { recursive: true, force: true });
