import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newTestStore, putBytes } from '../../test/support/fixtures/tracks';
import { CHUNK_BYTES, commitmentToHex } from '../tracks/commitment';
import { StoreVersionHoldings } from './store-version-holdings';

describe('StoreVersionHoldings', () => {
  it('reads held tracks whole and verified, and says which tracks are held at which length', async () => {
    const { store, root } = newTestStore();
    const sut = new StoreVersionHoldings(store);
    const data = randomBytes(2 * CHUNK_BYTES + 10);
    const commitment = await putBytes(store, data);
    expect((await sut.readTrack(commitment, data.length)).equals(data)).toBe(true);
    expect(await sut.holds(commitment, data.length)).toBe(true);
    expect(await sut.holds(commitment, data.length - 1)).toBe(false);
    expect(await sut.holds(randomBytes(32), 10)).toBe(false);

    // A flipped byte on disk is never returned as the track.
    const hex = commitmentToHex(commitment);
    const file = join(root, hex.slice(0, 2), hex.slice(2, 4), hex);
    const bad = Buffer.from(data);
    bad[CHUNK_BYTES + 3] ^= 1;
    writeFileSync(file, bad);
    await expect(sut.readTrack(commitment, data.length)).rejects.toThrow(
      /failed verification: chunk 1 does not match its hash/,
    );
  });
});
