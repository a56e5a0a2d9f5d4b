import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

/**
 * The track commitment scheme (docs/tracks.md, "Commitment"). The CLI and the gateway both use
 * it, and it is recorded on chain, so the bytes it hashes must never change:
 *
 *   chunkHash_i = SHA-256(chunk i)            chunks of CHUNK_BYTES, the last one may be short
 *   commitment  = SHA-256("tape-track-v1" || u64le(size) || chunkHash_0 || chunkHash_1 || ...)
 *
 * Hashing per chunk lets a reader verify each 64 KiB as it streams (bounded memory, ranges read
 * only the chunks they touch) once the chunk-hash list, stored beside the bytes and untrusted,
 * has been checked against the commitment.
 */
export const CHUNK_BYTES = 65536;
export const COMMITMENT_BYTES = 32;
export const CHUNK_HASH_BYTES = 32;
export const COMMITMENT_DOMAIN = Buffer.from('tape-track-v1', 'ascii');

/** Reads of 4 MiB keep syscalls rare while hashing stays the bottleneck. */
const FILE_READ_BYTES = 64 * CHUNK_BYTES;

export interface TrackDigest {
  commitment: Buffer;
  size: number;
  /** 32 bytes per chunk, in order: what the track store keeps beside the bytes. */
  chunkHashes: Buffer;
}

export function chunkCount(size: number): number {
  return Math.ceil(size / CHUNK_BYTES);
}

/** The commitment of a track from its size and its chunk-hash list (no check of the list). */
export function commitmentFromChunkHashes(size: number, chunkHashes: Buffer): Buffer {
  assertTrackSize(size);
  const header = Buffer.alloc(8);
  header.writeBigUInt64LE(BigInt(size));
  return createHash('sha256').update(COMMITMENT_DOMAIN).update(header).update(chunkHashes).digest();
}

/**
 * True when an (untrusted) chunk-hash list belongs to the track with this commitment and size:
 * right length for the size, and it hashes to the commitment.
 */
export function verifyChunkList(commitment: Buffer, size: number, chunkHashes: Buffer): boolean {
  if (commitment.length !== COMMITMENT_BYTES) return false;
  if (!Number.isSafeInteger(size) || size < 0) return false;
  if (chunkHashes.length !== chunkCount(size) * CHUNK_HASH_BYTES) return false;
  return commitmentFromChunkHashes(size, chunkHashes).equals(commitment);
}

/** Streaming hasher: feed any number of buffers of any size, then `digest()` once. */
export class TrackHasher {
  private current: ReturnType<typeof createHash> | undefined;
  private fill = 0;
  private total = 0;
  private hashes = Buffer.allocUnsafe(CHUNK_HASH_BYTES * 64);
  private hashCount = 0;
  private finished = false;

  get size(): number {
    return this.total;
  }

  update(data: Buffer): this {
    if (this.finished) throw new Error('TrackHasher: update after digest');
    let offset = 0;
    while (offset < data.length) {
      const take = Math.min(CHUNK_BYTES - this.fill, data.length - offset);
      this.current ??= createHash('sha256');
      // subarray is a view, not a copy: the bytes are hashed straight from the caller's buffer.
      this.current.update(take === data.length ? data : data.subarray(offset, offset + take));
      this.fill += take;
      offset += take;
      if (this.fill === CHUNK_BYTES) this.closeChunk();
    }
    this.total += data.length;
    return this;
  }

  digest(): TrackDigest {
    if (this.finished) throw new Error('TrackHasher: digest called twice');
    if (this.fill > 0) this.closeChunk();
    this.finished = true;
    const chunkHashes = this.hashes.subarray(0, this.hashCount * CHUNK_HASH_BYTES);
    return {
      commitment: commitmentFromChunkHashes(this.total, chunkHashes),
      size: this.total,
      chunkHashes,
    };
  }

  private closeChunk(): void {
    const digest = this.current!.digest();
    const needed = (this.hashCount + 1) * CHUNK_HASH_BYTES;
    if (needed > this.hashes.length) {
      const grown = Buffer.allocUnsafe(this.hashes.length * 2);
      this.hashes.copy(grown, 0, 0, this.hashCount * CHUNK_HASH_BYTES);
      this.hashes = grown;
    }
    digest.copy(this.hashes, this.hashCount * CHUNK_HASH_BYTES);
    this.hashCount++;
    this.current = undefined;
    this.fill = 0;
  }
}

export function commitmentOfBuffer(buf: Buffer): TrackDigest {
  return new TrackHasher().update(buf).digest();
}

/** Hashes a file with large sequential reads into one reused buffer. */
export async function commitmentOfFile(path: string): Promise<TrackDigest> {
  const hasher = new TrackHasher();
  await readFileSequentially(path, (bytes) => hasher.update(bytes));
  return hasher.digest();
}

/**
 * The read buffer for a file of `size` bytes: no larger than the file (plus one byte, so a file
 * read whole is known to end by the next read), at most FILE_READ_BYTES. A deploy hashes a
 * thousand small files: a 4 MiB buffer each was 4 GB of allocations and a second of garbage
 * collection for a 1,000-file site.
 */
export function readBufferBytes(size: number): number {
  return Math.max(1, Math.min(FILE_READ_BYTES, size + 1));
}

/**
 * Calls `onBytes` with successive views of one reused buffer; the view is only valid during the
 * call (hashers consume it synchronously).
 */
export async function readFileSequentially(
  path: string,
  onBytes: (bytes: Buffer) => void,
): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(readBufferBytes((await handle.stat()).size));
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) return total;
      onBytes(buffer.subarray(0, bytesRead));
      total += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

export function commitmentToHex(commitment: Buffer): string {
  if (commitment.length !== COMMITMENT_BYTES) {
    throw new RangeError(`a commitment is ${COMMITMENT_BYTES} bytes, got ${commitment.length}`);
  }
  return commitment.toString('hex');
}

/** The hex of a commitment a store is handed: a Buffer of COMMITMENT_BYTES, else RangeError. */
export function storeKeyHex(commitment: Buffer): string {
  if (!Buffer.isBuffer(commitment))
    throw new RangeError(`a commitment is ${COMMITMENT_BYTES} bytes`);
  return commitmentToHex(commitment);
}

/** A store's range read, its arguments checked (RangeError otherwise): the track's hex. */
export function rangeReadHex(
  commitment: Buffer,
  size: number,
  start: number,
  endInclusive: number,
): string {
  const hex = storeKeyHex(commitment);
  assertTrackSize(size);
  assertRangeInside(start, endInclusive, size);
  return hex;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Lowercase hex only, exactly 64 digits: one spelling per commitment. */
export function isCommitmentHex(text: unknown): text is string {
  return typeof text === 'string' && HEX64.test(text);
}

export function commitmentFromHex(hex: string): Buffer {
  if (!isCommitmentHex(hex)) throw new RangeError('a commitment is 64 lowercase hex digits');
  return Buffer.from(hex, 'hex');
}

/** The HTTP ETag of a track: its commitment in lowercase hex, quoted (a strong validator). */
export function etagOf(commitment: Buffer): string {
  return `"${commitmentToHex(commitment)}"`;
}

export function assertTrackSize(size: number): void {
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new RangeError(`a track size is a non-negative safe integer, got ${size}`);
  }
}

/** `start..endInclusive` is a non-empty range of bytes inside a `size`-byte track or object. */
export function assertRangeInside(
  start: number,
  endInclusive: number,
  size: number,
  what: 'track' | 'object' = 'track',
): void {
  if (
    !Number.isSafeInteger(start) ||
    !Number.isSafeInteger(endInclusive) ||
    start < 0 ||
    start > endInclusive ||
    endInclusive >= size
  ) {
    throw new RangeError(`range ${start}-${endInclusive} is not inside a ${size}-byte ${what}`);
  }
}
