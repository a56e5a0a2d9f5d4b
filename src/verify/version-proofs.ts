import { commitmentOfBuffer } from '../tracks/commitment';
import { ObjectReader } from '../tracks/object-reader';
import { TrackNotFoundError } from '../tracks/track-errors';
import { TrackStore } from '../tracks/track-store';
import { StoreVersionHoldings } from '../versions/store-version-holdings';
import { VersionEntry } from '../versions/version-entry';
import { CommitEntry, decodeRoot, VersionRoot } from '../versions/version-nodes';
import { VersionNodeSource, VersionReader } from '../versions/version-reader';
import { ProofEntry, TapeProof } from './core/tape-verifier';

/** The parts of a proof that come from the version (docs/verify.md): nodes, entry, content. */
export type VersionPart = Pick<TapeProof, 'nodes' | 'entry' | 'content'>;

/**
 * Proof parts built from the gateway's own store, every track read verified: the version's
 * root and the nodes a lookup reads on the way to the entry (recorded by a reader with no cache,
 * so the path is exactly what a verifier walks), then the entry's content proof.
 */
export class VersionProofs {
  private readonly holdings: StoreVersionHoldings;

  constructor(
    private readonly store: TrackStore,
    private readonly objects: ObjectReader,
  ) {
    this.holdings = new StoreVersionHoldings(store);
  }

  /** A version's root and its lookups, recording the nodes read. */
  async open(root: Buffer): Promise<VersionLookup> {
    const length = await this.store.storedSize(root);
    if (length === undefined) throw new TrackNotFoundError(root.toString('hex'));
    const rootBytes = await this.holdings.readTrack(root, length);
    return new VersionLookup(this, rootBytes, decodeRoot(rootBytes));
  }

  /** The chunk hashes of the file's own commitment, or its segment manifest's bytes. */
  async content(entry: CommitEntry): Promise<TapeProof['content']> {
    const loc = entry.location;
    if (loc.kind === 'stream') {
      const manifest = await this.holdings.readTrack(entry.commitment, loc.manifestBytes);
      return { manifest: manifest.toString('base64') };
    }
    if (loc.kind === 'blob') {
      const list = await this.store.readChunkHashes(entry.commitment, entry.size);
      return { chunkHashes: list.toString('base64') };
    }
    // A packed file (at most 64 KiB, one chunk of its own): hash its verified bytes.
    const opened = await this.objects.open({
      ...loc,
      commitment: entry.commitment,
      size: entry.size,
    });
    const parts: Buffer[] = [];
    if (entry.size > 0)
      for await (const part of opened.read(0, entry.size - 1)) parts.push(part as Buffer);
    return { chunkHashes: commitmentOfBuffer(Buffer.concat(parts)).chunkHashes.toString('base64') };
  }

  readNode(commitment: Buffer, bytes: number): Promise<Buffer> {
    return this.holdings.readTrack(commitment, bytes);
  }
}

/** Lookups in one version; `nodes` holds the root and every node read so far, in order. */
export class VersionLookup {
  readonly nodes: Buffer[];
  private readonly reader: VersionReader;

  constructor(
    private readonly proofs: VersionProofs,
    rootBytes: Buffer,
    readonly root: VersionRoot,
  ) {
    this.nodes = [rootBytes];
    const seen = new Set<string>();
    const source: VersionNodeSource = {
      read: async (commitment, bytes) => {
        const node = await proofs.readNode(commitment, bytes);
        const key = commitment.toString('hex');
        if (!seen.has(key)) {
          seen.add(key);
          this.nodes.push(node);
        }
        return node;
      },
    };
    this.reader = new VersionReader(source);
  }

  byName(name: string): Promise<VersionEntry | undefined> {
    return this.reader.lookupName(this.root, name);
  }

  byCommitment(commitment: Buffer): Promise<CommitEntry | undefined> {
    return this.reader.lookupCommitment(this.root, commitment);
  }

  /** The proof parts of an entry this lookup found (its path nodes are already recorded). */
  async part(entry: VersionEntry | CommitEntry, withName: boolean): Promise<VersionPart> {
    return {
      nodes: this.nodes.map((n) => n.toString('base64')),
      entry: proofEntry(entry, withName),
      content: await this.proofs.content(entry),
    };
  }
}

export function proofEntry(entry: VersionEntry | CommitEntry, withName: boolean): ProofEntry {
  const loc = entry.location;
  const out: ProofEntry = {
    commitment: entry.commitment.toString('hex'),
    size: entry.size,
    contentType: entry.contentType,
    location:
      loc.kind === 'packed'
        ? {
            kind: 'packed',
            pack: loc.pack.toString('hex'),
            packSize: loc.packSize,
            offset: loc.offset,
          }
        : loc.kind === 'stream'
          ? { kind: 'stream', manifestBytes: loc.manifestBytes }
          : { kind: 'blob' },
  };
  if (withName && 'name' in entry) return { name: entry.name, ...out };
  return out;
}
