import { CHUNK_BYTES, commitmentOfBuffer } from '../tracks/commitment';

/**
 * Packs small files into pack tracks (docs/versions.md, "Packs"), so a site of a thousand small
 * files is a few tracks, not a thousand. Files are laid out in the order given, each at an offset
 * that keeps it inside one 64 KiB chunk of the pack (zero padding before it otherwise), so serving
 * one packed file reads and verifies exactly one chunk.
 */
export const PACK_MAX_FILE_BYTES = CHUNK_BYTES;
export const PACK_TARGET_BYTES = 4 * 1024 * 1024;

export interface PackInput {
  name: string;
  bytes: Buffer;
}

export interface Pack {
  commitment: Buffer;
  bytes: Buffer;
}

export interface Placement {
  pack: number;
  offset: number;
}

export interface PackedFiles {
  packs: Pack[];
  /** Where each input file landed, by name. */
  placements: Map<string, Placement>;
}

/** True for a file that goes into a pack rather than a track of its own. */
export function isPackable(size: number): boolean {
  return size > 0 && size <= PACK_MAX_FILE_BYTES;
}

export function packFiles(files: readonly PackInput[]): PackedFiles {
  const packs: Pack[] = [];
  const placements = new Map<string, Placement>();
  let parts: Buffer[] = [];
  let length = 0;
  const close = (): void => {
    if (length === 0) return;
    const bytes = Buffer.concat(parts, length);
    packs.push({ commitment: commitmentOfBuffer(bytes).commitment, bytes });
    parts = [];
    length = 0;
  };
  for (const file of files) {
    if (!isPackable(file.bytes.length))
      throw new RangeError(`${file.name}: ${file.bytes.length} bytes cannot be packed`);
    let offset = alignedOffset(length, file.bytes.length);
    if (offset + file.bytes.length > PACK_TARGET_BYTES) {
      close();
      offset = 0;
    }
    if (offset > length) parts.push(Buffer.alloc(offset - length));
    parts.push(file.bytes);
    length = offset + file.bytes.length;
    placements.set(file.name, { pack: packs.length, offset });
  }
  close();
  return { packs, placements };
}

/** The first offset at or after `at` where `size` bytes stay inside one chunk. */
export function alignedOffset(at: number, size: number): number {
  const within = at % CHUNK_BYTES;
  return within + size > CHUNK_BYTES ? at - within + CHUNK_BYTES : at;
}
