import {
  MAX_MANIFEST_BYTES,
  MAX_MANIFEST_SEGMENTS,
  Manifest,
  ManifestError,
  decodeManifest,
  encodeManifest,
} from './manifest';

const S = 256 * 1024;
const hex = (n: number) => (n % 256).toString(16).padStart(2, '0').repeat(32);

function manifestOf(sizes: number[], segmentBytes = S): Manifest {
  return {
    type: 'tape-manifest',
    version: 1,
    size: sizes.reduce((a, b) => a + b, 0),
    segment_bytes: segmentBytes,
    segments: sizes.map((size, i) => ({ size, commitment: hex(i) })),
  };
}

/** Decoding text that is not what encode gives must fail with a ManifestError. */
function expectRejected(text: string | Buffer, message: RegExp) {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  expect(() => decodeManifest(bytes)).toThrow(ManifestError);
  expect(() => decodeManifest(bytes)).toThrow(message);
}

describe('manifest encoding', () => {
  it('writes the exact canonical bytes', () => {
    const bytes = encodeManifest(manifestOf([S, 10]));
    expect(bytes.toString()).toBe(
      `{"type":"tape-manifest","version":1,"size":${S + 10},"segment_bytes":${S},` +
        `"segments":[{"size":${S},"commitment":"${hex(0)}"},{"size":10,"commitment":"${hex(1)}"}]}`,
    );
  });

  it('round-trips', () => {
    for (const sizes of [[1], [S], [S, S, 1], [S, S, S]]) {
      const manifest = manifestOf(sizes);
      expect(decodeManifest(encodeManifest(manifest))).toEqual(manifest);
    }
  });

  it('refuses to encode an invalid manifest', () => {
    expect(() => encodeManifest(manifestOf([10, S]))).toThrow(/segment 0: size must be/);
    expect(() => encodeManifest({ ...manifestOf([S, 1]), size: 5 })).toThrow(/sum to/);
  });
});

describe('manifest validation', () => {
  const good = encodeManifest(manifestOf([S, S, 7])).toString();

  it('rejects bytes that are not JSON or not an object', () => {
    expectRejected('', /not JSON/);
    expectRejected('{', /not JSON/);
    expectRejected(Buffer.from([0xff, 0xfe, 0x00]), /not JSON/);
    expectRejected('[]', /not a JSON object/);
    expectRejected('null', /not a JSON object/);
    expectRejected('"tape-manifest"', /not a JSON object/);
  });

  it('rejects an unknown type or version', () => {
    expectRejected(good.replace('"tape-manifest"', '"tape-manifesto"'), /unknown type/);
    expectRejected(good.replace('"version":1', '"version":2'), /unknown version/);
    expectRejected(good.replace('"version":1', '"version":"1"'), /unknown version/);
    expectRejected(good.replace('"type":"tape-manifest",', ''), /unknown type/);
  });

  it('rejects sizes that do not add up', () => {
    expectRejected(good.replace(`"size":${2 * S + 7}`, `"size":${2 * S + 8}`), /sum to/);
    expectRejected(good.replace(`"size":${2 * S + 7}`, `"size":-1`), /size is not/);
    expectRejected(good.replace(`"size":${2 * S + 7}`, `"size":1.5`), /size is not/);
    expectRejected(good.replace(`"size":${2 * S + 7}`, `"size":"${2 * S + 7}"`), /must be numbers/);
  });

  it('rejects a segment other than the last that is not segment_bytes long', () => {
    const text = encodeManifest(manifestOf([S, S, 7]))
      .toString()
      .replace(
        `{"size":${S},"commitment":"${hex(1)}"}`,
        `{"size":${S - 1},"commitment":"${hex(1)}"}`,
      )
      .replace(`"size":${2 * S + 7}`, `"size":${2 * S + 6}`);
    expectRejected(text, /segment 1: size must be segment_bytes/);
  });

  it('rejects an empty or oversized last segment', () => {
    const empty = good
      .replace(`{"size":7,`, `{"size":0,`)
      .replace(`"size":${2 * S + 7}`, `"size":${2 * S}`);
    expectRejected(empty, /last segment: size must be from 1/);
    const big = good
      .replace(`{"size":7,`, `{"size":${S + 1},`)
      .replace(`"size":${2 * S + 7}`, `"size":${3 * S + 1}`);
    expectRejected(big, /last segment/);
    expectRejected(
      '{"type":"tape-manifest","version":1,"size":0,"segment_bytes":65536,"segments":[]}',
      /non-empty/,
    );
  });

  it('rejects a segment_bytes out of bounds', () => {
    expectRejected(
      `{"type":"tape-manifest","version":1,"size":5,"segment_bytes":1000,"segments":[{"size":5,"commitment":"${hex(0)}"}]}`,
      /segment_bytes must be/,
    );
    expect(() => encodeManifest(manifestOf([5], 2 ** 31))).toThrow(/segment_bytes must be/);
  });

  it('rejects commitments that are not 64 lowercase hex digits', () => {
    expectRejected(
      good.replace(hex(2), hex(2).toUpperCase().replace(/0/g, 'A')),
      /segment 2: commitment/,
    );
    expectRejected(good.replace(hex(2), hex(2).slice(2)), /segment 2: commitment/);
    expectRejected(good.replace(`"${hex(2)}"`, '42'), /segment 2: must be/);
  });

  it('rejects non-canonical spellings: spacing, key order, extra or repeated keys, escapes', () => {
    expectRejected(good.replace('"version":1,', '"version": 1,'), /canonical/);
    expectRejected(` ${good}`, /canonical/);
    expectRejected(`${good}\n`, /canonical/);
    expectRejected(
      good.replace('{"type":"tape-manifest","version":1,', '{"version":1,"type":"tape-manifest",'),
      /canonical/,
    );
    expectRejected(good.replace('"version":1,', '"version":1,"extra":true,'), /canonical/);
    expectRejected(good.replace('"version":1,', '"version":1,"version":1,'), /canonical/);
    expectRejected(
      good.replace('"segment_bytes":262144', '"segment_bytes":262.144e3'),
      /canonical/,
    );
    expectRejected(
      good.replace(`"commitment":"${hex(0)}"`, `"commitment":"\\u0030${hex(0).slice(1)}"`),
      /canonical/,
    );
    expectRejected(good.replace(`{"size":7,`, `{"size":7,"x":1,`), /canonical/);
  });

  it('rejects more than the segment limit and oversized input before parsing', () => {
    expect(MAX_MANIFEST_SEGMENTS).toBe(1_000_000);
    const tooMany = manifestOf([1]);
    tooMany.segments = new Array(MAX_MANIFEST_SEGMENTS + 1).fill({ size: S, commitment: hex(0) });
    expect(() => encodeManifest(tooMany)).toThrow(/more than 1000000 segments/);
    const huge = Buffer.alloc(MAX_MANIFEST_BYTES + 1, 0x20);
    expectRejected(huge, /over the 67108864-byte limit/);
  });

  it('refuses to encode a manifest larger than 64 MiB', () => {
    // 720,000 segments of 95 bytes each are about 68.4 MB: under the count limit, over the size.
    const sizes = new Array<number>(720_000).fill(65536);
    expect(() => encodeManifest(manifestOf(sizes, 65536))).toThrow(/over the 67108864-byte limit/);
  });
});
