import {
  TrackDigest,
  TrackHasher,
  commitmentOfBuffer,
  commitmentToHex,
  readFileSequentially,
} from './commitment';
import {
  MANIFEST_TYPE,
  MANIFEST_VERSION,
  MAX_SEGMENT_BYTES,
  MIN_SEGMENT_BYTES,
  Manifest,
  ManifestError,
  encodeManifest,
} from './manifest';

/** One segment track of a streamed object, and where its bytes sit in the file. */
export interface SegmentTrack {
  offset: number;
  size: number;
  commitment: Buffer;
}

/**
 * How a file is stored: one blob track when it fits in a segment, otherwise segment tracks plus
 * a manifest track. The manifest is the track the object name points at; its on-chain `size` is
 * the whole object's size (docs/program.md), its own byte length is `manifestBytes.length`.
 */
export type TrackLayout =
  | { kind: 'blob'; size: number; digest: TrackDigest }
  | {
      kind: 'manifest';
      size: number;
      segments: SegmentTrack[];
      manifest: Manifest;
      manifestBytes: Buffer;
      manifestDigest: TrackDigest;
    };

/**
 * Splits a byte stream into segments of `segmentBytes` while hashing, in one pass. Only
 * commitments are kept per segment (not chunk lists), so memory is O(segments), not O(bytes).
 */
export class SegmentingHasher {
  private readonly segments: SegmentTrack[] = [];
  private current = new TrackHasher();
  private currentOffset = 0;
  private total = 0;

  constructor(private readonly segmentBytes: number) {
    if (
      !Number.isSafeInteger(segmentBytes) ||
      segmentBytes < MIN_SEGMENT_BYTES ||
      segmentBytes > MAX_SEGMENT_BYTES
    ) {
      throw new RangeError(
        `segment size must be an integer from ${MIN_SEGMENT_BYTES} to ${MAX_SEGMENT_BYTES}, got ${segmentBytes}`,
      );
    }
  }

  update(data: Buffer): this {
    let offset = 0;
    while (offset < data.length) {
      // A full segment is closed only when more bytes arrive: a file of exactly one segment
      // stays a blob.
      if (this.current.size === this.segmentBytes) this.closeSegment();
      const take = Math.min(this.segmentBytes - this.current.size, data.length - offset);
      this.current.update(take === data.length ? data : data.subarray(offset, offset + take));
      offset += take;
      this.total += take;
    }
    return this;
  }

  digest(): TrackLayout {
    if (this.segments.length > 0) {
      this.closeSegment();
      return this.manifestLayout();
    }
    const digest = this.current.digest();
    return { kind: 'blob', size: digest.size, digest };
  }

  private closeSegment(): void {
    const digest = this.current.digest();
    this.segments.push({
      offset: this.currentOffset,
      size: digest.size,
      commitment: digest.commitment,
    });
    this.currentOffset += digest.size;
    this.current = new TrackHasher();
  }

  private manifestLayout(): TrackLayout {
    const manifest: Manifest = {
      type: MANIFEST_TYPE,
      version: MANIFEST_VERSION,
      size: this.total,
      segment_bytes: this.segmentBytes,
      segments: this.segments.map((s) => ({
        size: s.size,
        commitment: commitmentToHex(s.commitment),
      })),
    };
    let manifestBytes: Buffer;
    try {
      manifestBytes = encodeManifest(manifest);
    } catch (err) {
      if (err instanceof ManifestError)
        throw new RangeError(`cannot store this file: ${err.message}`);
      throw err;
    }
    return {
      kind: 'manifest',
      size: this.total,
      segments: this.segments,
      manifest,
      manifestBytes,
      manifestDigest: commitmentOfBuffer(manifestBytes),
    };
  }
}

/** The layout of a file on disk, hashed in one sequential pass with large reads. */
export async function splitFileIntoTracks(
  path: string,
  segmentBytes: number,
): Promise<TrackLayout> {
  const hasher = new SegmentingHasher(segmentBytes);
  await readFileSequentially(path, (bytes) => hasher.update(bytes));
  return hasher.digest();
}
