import { COMMITMENT_BYTES, commitmentFromHex } from './commitment';
import { Manifest } from './manifest';

/**
 * A decoded, validated manifest in compact form: every segment but the last is exactly
 * `segmentBytes`, so the segment holding an offset is a division, and the commitments sit in one
 * buffer (32 bytes each) rather than thousands of strings. Cached by the object reader.
 */
export class SegmentTable {
  readonly count: number;
  readonly byteLength: number;

  private constructor(
    readonly size: number,
    readonly segmentBytes: number,
    private readonly commitments: Buffer,
  ) {
    this.count = commitments.length / COMMITMENT_BYTES;
    this.byteLength = commitments.length + 64;
  }

  /** From a manifest that decodeManifest has already validated. */
  static fromManifest(manifest: Manifest): SegmentTable {
    const commitments = Buffer.allocUnsafe(manifest.segments.length * COMMITMENT_BYTES);
    manifest.segments.forEach((segment, i) => {
      commitmentFromHex(segment.commitment).copy(commitments, i * COMMITMENT_BYTES);
    });
    return new SegmentTable(manifest.size, manifest.segment_bytes, commitments);
  }

  indexOf(offset: number): number {
    return Math.floor(offset / this.segmentBytes);
  }

  startOf(index: number): number {
    return index * this.segmentBytes;
  }

  sizeOf(index: number): number {
    return index === this.count - 1 ? this.size - this.startOf(index) : this.segmentBytes;
  }

  commitmentOf(index: number): Buffer {
    return this.commitments.subarray(index * COMMITMENT_BYTES, (index + 1) * COMMITMENT_BYTES);
  }
}
