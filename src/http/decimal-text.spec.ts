import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import { decimalText } from './decimal-text';

describe('decimalText', () => {
  it.each([
    0,
    7,
    10,
    99,
    100,
    999,
    1000,
    1001,
    10_000,
    100_007,
    999_999,
    1_000_000,
    999_999_999,
    1_000_000_000,
    4_294_967_296,
    Number.MAX_SAFE_INTEGER,
  ])('writes %d as String() does', (n) => {
    expect(decimalText(n)).toBe(String(n));
  });

  it('agrees with String() on random integers of every length', () => {
    for (let digits = 1; digits <= 16; digits++) {
      for (let i = 0; i < 200; i++) {
        const n = Math.min(Number.MAX_SAFE_INTEGER, Math.floor(Math.random() * 10 ** digits));
        expect(decimalText(n)).toBe(String(n));
      }
    }
  });

  it.each([-1, -1000, 1.5, 0.1, NaN, Infinity, -Infinity, 2 ** 53, 1e21, -0])(
    'leaves %p to String()',
    (n) => {
      expect(decimalText(n)).toBe(String(n));
    },
  );

  it('leaves nothing for the young-generation collector to promote, where String() does', () => {
    // The reason this exists, checked on V8 itself: a child process turns 200,000 changing figures
    // into text each way, and V8's own trace counts the bytes its scavenges promoted.
    const source = readFileSync(join(__dirname, 'decimal-text.ts'), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    });
    // Each turn also makes 8 KB of garbage, as answering a request does, so a few hundred
    // figures are written between two collections, not tens of thousands: then a figure's string
    // is still in the number-string cache at the next collection, as it is in a server.
    const run = (how: string) =>
      `{
         let sink = '';
         let garbage;
         for (let n = 2_000_000_000; n > 1_999_800_000; n--) {
           garbage = new Array(1000);
           garbage[0] = n;
           sink = ${how};
         }
         if (sink.length !== 10 || garbage.length !== 1000) throw new Error(sink);
         console.log('phase-end');
       }`;
    const child = spawnSync(
      process.execPath,
      [
        '--trace-gc-nvp',
        '-e',
        `const mod = {}; ((exports) => { ${outputText} })(mod); ${run('String(n)')} ${run('mod.decimalText(n)')}`,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect({ status: child.status, stderr: child.stderr }).toEqual({ status: 0, stderr: '' });
    const [withString, withTables] = child.stdout
      .split('phase-end')
      .slice(0, 2)
      .map((phase) =>
        [...phase.matchAll(/gc=s .*? promoted=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0),
      );
    expect(withString).toBeGreaterThan(1_000_000);
    expect(withTables).toBeLessThan(withString / 10);
  });
});
