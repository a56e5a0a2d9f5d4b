import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitmentOfBuffer, commitmentToHex } from './commitment';
import { decodeManifest } from './manifest';
import { SegmentingHasher, splitFileIntoTracks, TrackLayout } from './track-layout';

const S = 256 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'layout-'));

function fileOf(data: Buffer): string {
  const file = join(dir, `f-${data.length}-${Math.random()}`);
  writeFileSync(file, data);
  return file;
}

/** The layout narrowed to its kind; any other kind fails the test (a bare return would pass it). */
function ofKind<K extends TrackLayout['kind']>(
  layout: TrackLayout,
  kind: K,
): Extract<TrackLayout, { kind: K }> {
  if (layout.kind !== kind) throw new Error(`expected a ${kind} layout, got ${layout.kind}`);
  return layout as Extract<TrackLayout, { kind: K }>;
}

describe('splitFileIntoTracks', () => {
  it.each([0, 1, S - 1, S])('keeps a %i-byte file as one blob track', async (size) => {
    const data = randomBytes(size);
    const layout = ofKind(await splitFileIntoTracks(fileOf(data), S), 'blob');
    expect(layout.size).toBe(size);
    expect(layout.digest.commitment.equals(commitmentOfBuffer(data).commitment)).toBe(true);
  });

  it.each([S + 1, 2 * S, 3 * S + 12345])(
    'splits a %i-byte file into segments + manifest',
    async (size) => {
      const data = randomBytes(size);
      const layout = ofKind(await splitFileIntoTracks(fileOf(data), S), 'manifest');
      expect(layout.size).toBe(size);
      expect(layout.segments.length).toBe(Math.ceil(size / S));
      for (const [i, segment] of layout.segments.entries()) {
        expect(segment.offset).toBe(i * S);
        const bytes = data.subarray(segment.offset, segment.offset + S);
        expect(segment.size).toBe(bytes.length);
        expect(segment.commitment.equals(commitmentOfBuffer(bytes).commitment)).toBe(true);
      }
      const decoded = decodeManifest(layout.manifestBytes);
      expect(decoded).toEqual(layout.manifest);
      expect(decoded.size).toBe(size);
      expect(decoded.segment_bytes).toBe(S);
      expect(decoded.segments.map((s) => s.commitment)).toEqual(
        layout.segments.map((s) => commitmentToHex(s.commitment)),
      );
      expect(
        layout.manifestDigest.commitment.equals(
          commitmentOfBuffer(layout.manifestBytes).commitment,
        ),
      ).toBe(true);
    },
  );

  it('gives the same layout whatever the sizes of the pieces fed in', () => {
    const data = randomBytes(2 * S + 999);
    const whole = ofKind(new SegmentingHasher(S).update(data).digest(), 'manifest');
    const pieces = new SegmentingHasher(S);
    // pieces that end exactly on a segment boundary, then odd sizes
    pieces.update(data.subarray(0, S));
    pieces.update(data.subarray(S, 2 * S));
    for (let offset = 2 * S; offset < data.length; offset += 100) {
      pieces.update(data.subarray(offset, offset + 100));
    }
    const fromPieces = ofKind(pieces.digest(), 'manifest');
    expect(fromPieces.manifestBytes.equals(whole.manifestBytes)).toBe(true);
  });

  it('rejects segment sizes outside the manifest bounds', () => {
    expect(() => new SegmentingHasher(1000)).toThrow(RangeError);
    expect(() => new SegmentingHasher(2 ** 31)).toThrow(RangeError);
    expect(() => new SegmentingHasher(65536.5)).toThrow(RangeError);
  });
});
