import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GATEWAY_NODE_FLAGS, missingNodeFlags } from './node-flags';

describe('gateway Node flags', () => {
  it('names what a process was started without', () => {
    expect(missingNodeFlags([])).toEqual([...GATEWAY_NODE_FLAGS]);
    expect(missingNodeFlags(['--inspect', ...GATEWAY_NODE_FLAGS])).toEqual([]);
  });

  it('are flags this Node accepts on its command line', () => {
    const run = spawnSync(process.execPath, [...GATEWAY_NODE_FLAGS, '-e', 'process.exit(0)'], {
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('are the flags `npm start` passes', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.start).toBe(`node ${GATEWAY_NODE_FLAGS.join(' ')} dist/main.js`);
  });
});
