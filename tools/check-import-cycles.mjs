// Fails when files of src/ import each other in a circle (docs/architecture.md, "Rules").
// Every relative import counts, `import type` too: a circle of types is still a circle a
// newcomer has to read through. Specs and their support files are left out.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');
const SPEC = /\.spec(-support)?\.ts$/;
// `import … from './x'`, `export … from './x'`, `import('./x')`, and `import './x'` (for its effects).
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"](\.[^'"]+)['"]/g;

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') && !SPEC.test(name) ? [full] : [];
  });
}

function resolve(from, specifier) {
  const base = path.resolve(path.dirname(from), specifier.replace(/\.js$/, ''));
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

const files = sources(SRC);
const edges = new Map(
  files.map((file) => {
    const text = readFileSync(file, 'utf8');
    const targets = new Set();
    for (const m of text.matchAll(IMPORT)) {
      const target = resolve(file, m[1] ?? m[2] ?? m[3]);
      if (target && !SPEC.test(target)) targets.add(target);
    }
    return [file, [...targets]];
  }),
);

// Tarjan's strongly connected components: each component of two or more files is a circle.
let index = 0;
const indexOf = new Map();
const lowOf = new Map();
const stack = [];
const onStack = new Set();
const circles = [];
function visit(file) {
  indexOf.set(file, index);
  lowOf.set(file, index);
  index++;
  stack.push(file);
  onStack.add(file);
  for (const next of edges.get(file) ?? []) {
    if (!indexOf.has(next)) {
      visit(next);
      lowOf.set(file, Math.min(lowOf.get(file), lowOf.get(next)));
    } else if (onStack.has(next)) {
      lowOf.set(file, Math.min(lowOf.get(file), indexOf.get(next)));
    }
  }
  if (lowOf.get(file) === indexOf.get(file)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) circles.push(component);
  }
}
for (const file of files) if (!indexOf.has(file)) visit(file);

if (circles.length > 0) {
  for (const circle of circles) {
    const names = circle.map((f) => path.relative(ROOT, f)).sort();
    process.stderr.write(`import circle between ${names.length} files:\n  ${names.join('\n  ')}\n`);
  }
  process.exit(1);
}
process.stdout.write(`no import circle among ${files.length} files of src/\n`);
