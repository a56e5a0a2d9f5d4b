import { CHUNK_BYTES, commitmentOfBuffer } from '../tracks/commitment';
import { PACK_TARGET_BYTES, alignedOffset, isPackable, packFiles } from './pack-writer';

function file(name: string, size: number, fill: number) {
  return { name, bytes: Buffer.alloc(size, fill) };
}

describe('packFiles', () => {
  it('lays files out so each stays inside one 64 KiB chunk, and reads back by range', () => {
    const files = [
      file('a.css', 40_000, 1),
      file('b.js', 30_000, 2),
      file('c.svg', 100, 3),
      file('d.html', CHUNK_BYTES, 4),
    ];
    const { packs, placements } = packFiles(files);
    expect(packs).toHaveLength(1);
    expect(placements.get('a.css')).toEqual({ pack: 0, offset: 0 });
    // b would cross the first chunk boundary at 40,000 + 30,000: it starts at the next chunk.
    expect(placements.get('b.js')).toEqual({ pack: 0, offset: CHUNK_BYTES });
    expect(placements.get('c.svg')).toEqual({ pack: 0, offset: CHUNK_BYTES + 30_000 });
    expect(placements.get('d.html')).toEqual({ pack: 0, offset: 2 * CHUNK_BYTES });
    for (const f of files) {
      const at = placements.get(f.name)!;
      const slice = packs[at.pack].bytes.subarray(at.offset, at.offset + f.bytes.length);
      expect(slice.equals(f.bytes)).toBe(true);
      expect(Math.floor(at.offset / CHUNK_BYTES)).toBe(
        Math.floor((at.offset + f.bytes.length - 1) / CHUNK_BYTES),
      );
    }
    expect(packs[0].commitment).toEqual(commitmentOfBuffer(packs[0].bytes).commitment);
  });

  it('starts a new pack past the target size and refuses files that are not packable', () => {
    const files = Array.from({ length: 70 }, (_, i) => file(`f${i}.bin`, CHUNK_BYTES, i));
    const { packs, placements } = packFiles(files);
    expect(packs.map((p) => p.bytes.length)).toEqual([PACK_TARGET_BYTES, 6 * CHUNK_BYTES]);
    expect(placements.get('f64.bin')).toEqual({ pack: 1, offset: 0 });
    expect(isPackable(0)).toBe(false);
    expect(isPackable(CHUNK_BYTES + 1)).toBe(false);
    expect(() => packFiles([file('big', CHUNK_BYTES + 1, 0)])).toThrow(RangeError);
    expect(alignedOffset(CHUNK_BYTES - 1, 1)).toBe(CHUNK_BYTES - 1);
    expect(alignedOffset(CHUNK_BYTES - 1, 2)).toBe(CHUNK_BYTES);
  });
});
