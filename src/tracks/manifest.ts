import { isCommitmentHex } from './commitment';

/**
 * The manifest of a streamed object (docs/tracks.md, "Manifest"): canonical JSON, exactly
 *
 *   {"type":"tape-manifest","version":1,"size":T,"segment_bytes":S,
 *    "segments":[{"size":n,"commitment":"<hex64>"},...]}
 *
 * with no whitespace. Decoding re-encodes and compares bytes, so one object has exactly one
 * manifest (and so one commitment): no reordered keys, extra keys, duplicates or spacing.
 */
export const MANIFEST_TYPE = 'tape-manifest';
export const MANIFEST_VERSION = 1;
export const MAX_MANIFEST_SEGMENTS = 1_000_000;
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
/** Same bounds as StorageConfig.segment_bytes. */
export const MIN_SEGMENT_BYTES = 64 * 1024;
export const MAX_SEGMENT_BYTES = 1024 * 1024 * 1024;

export interface ManifestSegment {
  size: number;
  /** Lowercase hex of the segment track's commitment. */
  commitment: string;
}

export interface Manifest {
  type: typeof MANIFEST_TYPE;
  version: typeof MANIFEST_VERSION;
  /** The whole object's size: the sum of the segment sizes. */
  size: number;
  segment_bytes: number;
  segments: ManifestSegment[];
}

export class ManifestError extends Error {
  readonly code = 'invalid_manifest';
  constructor(message: string) {
    super(`invalid manifest: ${message}`);
    this.name = 'ManifestError';
  }
}

export function encodeManifest(manifest: Manifest): Buffer {
  validateManifest(manifest);
  const bytes = Buffer.from(serialize(manifest), 'utf8');
  if (bytes.length > MAX_MANIFEST_BYTES) {
    throw new ManifestError(`${bytes.length} bytes is over the ${MAX_MANIFEST_BYTES}-byte limit`);
  }
  return bytes;
}

export function decodeManifest(bytes: Buffer): Manifest {
  if (bytes.length > MAX_MANIFEST_BYTES) {
    throw new ManifestError(`${bytes.length} bytes is over the ${MAX_MANIFEST_BYTES}-byte limit`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ManifestError('not JSON');
  }
  const manifest = checkShape(parsed);
  validateManifest(manifest);
  if (!Buffer.from(serialize(manifest), 'utf8').equals(bytes)) {
    throw new ManifestError('not in canonical form (key order, spacing, extra or repeated keys)');
  }
  return manifest;
}

/** The invariants every manifest holds, whether built here or decoded. */
export function validateManifest(manifest: Manifest): void {
  if (manifest.type !== MANIFEST_TYPE) throw new ManifestError('unknown type');
  if (manifest.version !== MANIFEST_VERSION) throw new ManifestError('unknown version');
  const { size, segment_bytes: segmentBytes, segments } = manifest;
  if (!isSize(size)) throw new ManifestError('size is not a non-negative safe integer');
  if (
    !isSize(segmentBytes) ||
    segmentBytes < MIN_SEGMENT_BYTES ||
    segmentBytes > MAX_SEGMENT_BYTES
  ) {
    throw new ManifestError(
      `segment_bytes must be an integer from ${MIN_SEGMENT_BYTES} to ${MAX_SEGMENT_BYTES}`,
    );
  }
  if (!Array.isArray(segments) || segments.length === 0) {
    throw new ManifestError('segments must be a non-empty array');
  }
  if (segments.length > MAX_MANIFEST_SEGMENTS) {
    throw new ManifestError(`more than ${MAX_MANIFEST_SEGMENTS} segments`);
  }
  let sum = 0;
  const last = segments.length - 1;
  for (let i = 0; i <= last; i++) {
    const segment = segments[i];
    if (!isCommitmentHex(segment.commitment)) {
      throw new ManifestError(`segment ${i}: commitment is not 64 lowercase hex digits`);
    }
    if (!isSize(segment.size)) {
      throw new ManifestError(`segment ${i}: size is not a non-negative safe integer`);
    }
    if (
      i < last ? segment.size !== segmentBytes : segment.size < 1 || segment.size > segmentBytes
    ) {
      throw new ManifestError(
        i < last
          ? `segment ${i}: size must be segment_bytes (${segmentBytes})`
          : `last segment: size must be from 1 to segment_bytes (${segmentBytes})`,
      );
    }
    sum += segment.size;
  }
  if (sum !== size) throw new ManifestError(`segment sizes sum to ${sum}, not size ${size}`);
}

function serialize(manifest: Manifest): string {
  const parts = manifest.segments.map((s) => `{"size":${s.size},"commitment":"${s.commitment}"}`);
  return (
    `{"type":"${MANIFEST_TYPE}","version":${MANIFEST_VERSION},"size":${manifest.size},` +
    `"segment_bytes":${manifest.segment_bytes},"segments":[${parts.join(',')}]}`
  );
}

/** Types only; the values are checked by validateManifest and the canonical comparison. */
function checkShape(value: unknown): Manifest {
  if (!isRecord(value)) throw new ManifestError('not a JSON object');
  if (value.type !== MANIFEST_TYPE) throw new ManifestError('unknown type');
  if (value.version !== MANIFEST_VERSION) throw new ManifestError('unknown version');
  if (!Array.isArray(value.segments)) throw new ManifestError('segments must be an array');
  const segments = value.segments.map((entry: unknown, i): ManifestSegment => {
    if (
      !isRecord(entry) ||
      typeof entry.size !== 'number' ||
      typeof entry.commitment !== 'string'
    ) {
      throw new ManifestError(`segment ${i}: must be {"size":<n>,"commitment":"<hex64>"}`);
    }
    return { size: entry.size, commitment: entry.commitment };
  });
  if (typeof value.size !== 'number' || typeof value.segment_bytes !== 'number') {
    throw new ManifestError('size and segment_bytes must be numbers');
  }
  return {
    type: MANIFEST_TYPE,
    version: MANIFEST_VERSION,
    size: value.size,
    segment_bytes: value.segment_bytes,
    segments,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
