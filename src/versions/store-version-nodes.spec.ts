import { rmSync } from 'node:fs';
import { TrackNotFoundError } from '../tracks/track-errors';
import { newTestStore, putBytes } from '../../test/support/fixtures/tracks';
import { buildVersion } from './version-builder';
import { StoreVersionNodes } from './store-version-nodes';
import { fakeEntry, sitePaths } from './version-test-support.spec-support';

describe('StoreVersionNodes', () => {
  it('looks names up through verified store reads, then from its cache alone', async () => {
    const { store, root: dir } = newTestStore();
    const paths = sitePaths(3000);
    const v = buildVersion(paths.map((n) => fakeEntry(n)));
    await putBytes(store, v.rootBytes);
    for (const n of v.nodes) await putBytes(store, n.bytes);
    const sut = new StoreVersionNodes(store);

    const root = await sut.root(v.rootCommitment);
    expect(root.entryCount).toBe(3000);
    const found = await sut.reader().lookupName(root, paths[1234]);
    expect(found?.commitment).toEqual(fakeEntry(paths[1234]).commitment);

    // Nodes are immutable: once decoded they are served from memory, store or not.
    rmSync(dir, { recursive: true, force: true });
    const again = await sut.reader().lookupName(await sut.root(v.rootCommitment), paths[1234]);
    expect(again?.commitment).toEqual(found?.commitment);
    await expect(sut.reader().lookupName(root, paths[7])).rejects.toThrow(/is not in the store/);
  });

  it('refuses a root the store does not hold', async () => {
    const { store } = newTestStore();
    await expect(new StoreVersionNodes(store).root(Buffer.alloc(32, 1))).rejects.toBeInstanceOf(
      TrackNotFoundError,
    );
  });
});
