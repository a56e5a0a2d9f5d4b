import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDirectory, makeDirectoryAsync } from './directories';

describe('makeDirectory', () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'dirs-'));
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  for (const [name, make] of [
    ['sync', async (path: string, mode?: number) => makeDirectory(path, mode)],
    ['async', makeDirectoryAsync],
  ] as const) {
    describe(name, () => {
      it('creates every missing level, with the mode asked for, and again changes nothing', async () => {
        const path = join(root, 'a', 'b', 'c');
        await make(path, 0o700);
        expect(statSync(path).isDirectory()).toBe(true);
        expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700);
        await make(path, 0o700);
        await make(root);
        expect(statSync(path).isDirectory()).toBe(true);
      });

      it('names a file in the way', async () => {
        writeFileSync(join(root, 'file'), 'x');
        await expect(make(join(root, 'file', 'sub'))).rejects.toThrow(
          `cannot create directory ${join(root, 'file', 'sub')}: ${join(root, 'file')} is not a directory (ENOTDIR)`,
        );
      });

      // Node 20's own recursive mkdir never returns there (the hang this replaces).
      it('refuses a directory under /proc with an error instead of hanging', async () => {
        await expect(make('/proc/tape-no-such-dir/data')).rejects.toThrow(
          /^cannot create directory \/proc\/tape-no-such-dir: E[A-Z]+$/,
        );
      });
    });
  }
});
