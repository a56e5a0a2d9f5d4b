import { createHash } from 'node:crypto';
import { VersionEntry } from './version-entry';
import { BuiltVersion } from './version-builder';
import { VersionHoldings } from './version-holdings';
import { commitmentOfBuffer } from '../tracks/commitment';
import { VersionNodeSource } from './version-reader';
import { packFiles } from './pack-writer';

/** A node source over a map of stored tracks, counting reads; it checks lengths like a store. */
export class MemoryNodeSource extends VersionNodeSource {
  readonly tracks = new Map<string, Buffer>();
  reads = 0;

  add(version: BuiltVersion): this {
    this.tracks.set(version.rootCommitment.toString('hex'), version.rootBytes);
    for (const n of version.nodes) this.tracks.set(n.commitment.toString('hex'), n.bytes);
    return this;
  }

  async read(commitment: Buffer, bytes: number): Promise<Buffer> {
    this.reads++;
    const found = this.tracks.get(commitment.toString('hex'));
    if (found === undefined || found.length !== bytes)
      throw new Error(`track ${commitment.toString('hex')} not stored`);
    return found;
  }
}

/** A blob entry whose commitment is derived from its name and a revision (no bytes needed). */
export function fakeEntry(name: string, revision = 0, size = 1000): VersionEntry {
  const commitment = createHash('sha256').update(`${name}#${revision}`).digest();
  return {
    name,
    commitment,
    size,
    contentType: 'text/html; charset=utf-8',
    metadata: Buffer.alloc(0),
    location: { kind: 'blob' },
  };
}

/** `count` realistic site paths, deterministic. */
export function sitePaths(count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const dir = `docs/section-${String(i % 97).padStart(2, '0')}/part-${Math.floor(i / 97) % 31}`;
    out.push(`${dir}/page-${i}.html`);
  }
  return out;
}

/** Holdings over a map of tracks, stored by their commitment. */
export class MemoryHoldings extends VersionHoldings {
  readonly tracks = new Map<string, Buffer>();
  put(bytes: Buffer): Buffer {
    const c = commitmentOfBuffer(bytes).commitment;
    this.tracks.set(c.toString('hex'), bytes);
    return c;
  }
  /** Stores `bytes` and returns the blob entry `name` of them. */
  blob(name: string, bytes: Buffer, contentType = 'text/plain'): VersionEntry {
    return {
      name,
      commitment: this.put(bytes),
      size: bytes.length,
      contentType,
      metadata: Buffer.alloc(0),
      location: { kind: 'blob' },
    };
  }
  putVersion(v: BuiltVersion): void {
    this.put(v.rootBytes);
    for (const n of v.nodes) this.put(n.bytes);
  }
  async readTrack(commitment: Buffer, bytes: number): Promise<Buffer> {
    const b = this.tracks.get(commitment.toString('hex'));
    if (b === undefined || b.length !== bytes) throw new Error('not held');
    return b;
  }
  async holds(commitment: Buffer, bytes: number): Promise<boolean> {
    return this.tracks.get(commitment.toString('hex'))?.length === bytes;
  }
}

/** Entries for these files packed together (text/plain, no metadata), the packs put in `holdings`. */
export function packedEntries(
  holdings: MemoryHoldings,
  files: { name: string; bytes: Buffer }[],
): VersionEntry[] {
  const { packs, placements } = packFiles(files);
  for (const p of packs) holdings.put(p.bytes);
  return files.map((f) => {
    const at = placements.get(f.name)!;
    return {
      name: f.name,
      commitment: commitmentOfBuffer(f.bytes).commitment,
      size: f.bytes.length,
      contentType: 'text/plain',
      metadata: Buffer.alloc(0),
      location: {
        kind: 'packed',
        pack: packs[at.pack].commitment,
        packSize: packs[at.pack].bytes.length,
        offset: at.offset,
      },
    };
  });
}
