import { execFileSync } from 'node:child_process';
import {
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transpileModule, ModuleKind, ScriptTarget } from 'typescript';

/**
 * The code cache in real Node processes: a fixture package whose entry installs the cache (the
 * module under test, transpiled) and loads a few modules that look at what Node gives them.
 */
interface RunResult {
  installed: boolean;
  stats: { hits: number; misses: number; passed: number } | undefined;
  values: Record<string, unknown>;
}

/** Every module of the fixture compiled from source, or from the cache (import() left to Node). */
const ALL_MISSED = { hits: 0, misses: 3, passed: 1 };
const ALL_HIT = { hits: 3, misses: 0, passed: 1 };

let root: string;
let cacheDir: string;

const ENTRY = `
const { installCodeCache, codeCacheStats } = require('./code-cache.js');
const installed = installCodeCache('fixture', process.env.CACHE_DIR);
const a = require('./lib/a');
const tool = require('./lib/tool');
require('./lib/dynamic').later().then((esm) => {
  const s = codeCacheStats();
  // A link planted where this process will write its temporary file.
  if (process.env.PLANT) require('fs').symlinkSync(process.env.PLANT, s.file + '.' + process.pid + '.tmp');
  process.stdout.write(JSON.stringify({
    installed,
    stats: s && { hits: s.hits, misses: s.misses, passed: s.passed },
    values: { ...a.values, tool, esm },
  }));
});
`;

const MODULE_A = `
const b = require('./b');
module.exports.values = {
  thisIsExports: this === module.exports,
  filename: __filename,
  dirname: __dirname,
  resolved: require.resolve('./b'),
  hasPaths: Array.isArray(require.resolve.paths('x')),
  mainIsEntry: require.main === process.mainModule,
  inCache: require.cache[__filename] === module,
  b: b.value,
};
`;

/** import() in cached code would fail (nodejs/node#43663): this module is left to Node. */
const MODULE_DYNAMIC = `module.exports.later = () => import('./c.mjs').then((m) => m.default);\n`;

function writeFixture(bValue: string): void {
  const source = readFileSync(join(__dirname, 'code-cache.ts'), 'utf8');
  const js = transpileModule(source, {
    compilerOptions: {
      module: ModuleKind.CommonJS,
      target: ScriptTarget.ES2022,
      esModuleInterop: true,
    },
  }).outputText;
  writeFileSync(join(root, 'code-cache.js'), js);
  writeFileSync(join(root, 'entry.js'), ENTRY);
  writeFileSync(join(root, 'lib', 'a.js'), MODULE_A);
  writeFileSync(join(root, 'lib', 'b.js'), `module.exports.value = '${bValue}';\n`);
  writeFileSync(join(root, 'lib', 'dynamic.js'), MODULE_DYNAMIC);
  writeFileSync(join(root, 'lib', 'c.mjs'), `export default 'esm loaded';\n`);
  writeFileSync(join(root, 'lib', 'tool.js'), `#!/usr/bin/env node\nmodule.exports = 'shebang';\n`);
}

function run(env: Record<string, string> = {}): RunResult {
  const out = execFileSync(process.execPath, [join(root, 'entry.js')], {
    env: { ...process.env, CACHE_DIR: cacheDir, TAPE_CODE_CACHE: '', ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out) as RunResult;
}

function cacheFile(): string {
  const files = readdirSync(cacheDir);
  expect(files).toHaveLength(1);
  return join(cacheDir, files[0]);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'code-cache-'));
  cacheDir = join(root, 'cache');
  mkdirSync(join(root, 'lib'));
  writeFixture('one');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('code cache', () => {
  it('compiles from source once, then from the cache, with the same results', () => {
    const first = run();
    expect(first.installed).toBe(true);
    expect(first.stats).toEqual(ALL_MISSED);
    const second = run();
    expect(second.stats).toEqual(ALL_HIT);
    expect(second.values).toEqual(first.values);
  });

  it('gives modules what Node gives them', () => {
    run();
    const { values } = run();
    expect(values).toEqual({
      thisIsExports: true,
      filename: join(root, 'lib', 'a.js'),
      dirname: join(root, 'lib'),
      resolved: join(root, 'lib', 'b.js'),
      hasPaths: true,
      mainIsEntry: true,
      inCache: true,
      b: 'one',
      tool: 'shebang',
      esm: 'esm loaded',
    });
  });

  it('never runs cached code for a changed source, even of the same length', () => {
    run();
    writeFixture('two');
    const changed = run();
    expect(changed.values.b).toBe('two');
    expect(changed.stats).toEqual({ hits: 2, misses: 1, passed: 1 });
    expect(run().stats).toEqual(ALL_HIT);
  });

  it('reads a damaged file as an empty cache and writes it again', () => {
    run();
    const file = cacheFile();
    const good = readFileSync(file);
    for (const damaged of [
      Buffer.from('not a cache'),
      good.subarray(0, good.length - 10),
      Buffer.concat([good, Buffer.from('x')]),
    ]) {
      writeFileSync(file, damaged);
      const result = run();
      expect(result.values.b).toBe('one');
      expect(result.stats).toEqual(ALL_MISSED);
      expect(run().stats).toEqual(ALL_HIT);
    }
  });

  it('ignores a file another user owns', () => {
    run();
    chownSync(cacheFile(), 65534, 65534);
    expect(run().stats).toEqual(ALL_MISSED);
  });

  it('never writes through a link planted at its temporary name', () => {
    const victim = join(root, 'victim');
    writeFileSync(victim, 'keep me');
    mkdirSync(cacheDir);
    expect(run({ PLANT: victim }).stats).toEqual(ALL_MISSED);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    expect(readdirSync(cacheDir)).toEqual([]);
    // The link is gone: the next process writes the cache.
    run();
    expect(run().stats).toEqual(ALL_HIT);
  });

  it('does nothing with TAPE_CODE_CACHE=off', () => {
    const result = run({ TAPE_CODE_CACHE: 'off' });
    expect(result.installed).toBe(false);
    expect(result.stats).toBeUndefined();
    expect(result.values.b).toBe('one');
    expect(() => readdirSync(cacheDir)).toThrow(/ENOENT/); // no cache directory was made
  });
});
