import { isWellKnownName } from '../chain/hidden-names';
import { commitmentOfBuffer } from '../tracks/commitment';
import { CertifiedFacts, CertifyingNodeCache, Segments, entryFact } from './certified-facts';
import { decodeManifest } from '../tracks/manifest';
import { IntegrityError } from '../tracks/track-errors';
import { buildVersion } from './version-builder';
import { VersionEntry, VersionFormatError } from './version-entry';
import { MAX_SETTINGS_BYTES, VersionRoot } from './version-nodes';
import { VersionHoldings } from './version-holdings';
import { VersionNodeSource, VersionReader } from './version-reader';
import { SegmentsOf, TrackSizes, publishSizes, versionTracks } from './version-tracks';

export const SETTINGS_NAME = '_site.json';

/** A version the storage authority may sign for: what Publish will carry. */
export interface Certified {
  root: VersionRoot;
  tracks: TrackSizes;
  versionBytes: number;
  addedBytes: number;
  /** What this certification established: pass it as `trusted` for the tape's next version. */
  facts: CertifiedFacts;
}

/** Why a version is not certified: the first problem found, for the publisher's one-line error. */
export class CertificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CertificationError';
  }
}

export interface VersionRef {
  commitment: Buffer;
  bytes: number;
}

/**
 * Checks a version as a whole before the storage authority signs its Publish: canonical nodes
 * and trees, no hidden name, every referenced byte held and verified (each packed file's range
 * against the file's own commitment), settings equal to the version's `_site.json`; then its
 * bytes and the bytes it adds to `base` (the tape's current version, whose tracks are passed in).
 */
export class VersionCertifier {
  /**
   * `wellKnownAllow`: the `.well-known/` names a version may hold (the operator's
   * `gateway.site.well_known_allow`); any other is refused, as every hidden name is.
   */
  constructor(
    private readonly holdings: VersionHoldings,
    private readonly wellKnownAllow: ReadonlySet<string> = new Set(),
  ) {}

  /**
   * `trusted`: facts of a version this certifier certified before for the same tape and whose
   * references are kept (the tape's current version, the base): its nodes are not read again and
   * entries whose bytes it checked (same commitment, size and location) are not checked again.
   * The whole version is still walked and rebuilt (canonical tree, names), from decoded nodes.
   */
  async certify(
    version: VersionRef,
    base: TrackSizes | undefined,
    trusted?: CertifiedFacts,
  ): Promise<Certified> {
    const cache = new CertifyingNodeCache(trusted);
    const reader = new VersionReader(new HoldingsNodeSource(this.holdings), cache);
    const checked = new Set<string>();
    const segments = new Map<string, Segments>();
    const segmentsOf: SegmentsOf = async (entry) => {
      const key = entry.commitment.toString('hex');
      let found = segments.get(key) ?? trusted?.segments.get(key);
      if (found === undefined) found = await this.segmentsOf(entry);
      if (entry.location.kind === 'stream') segments.set(key, found);
      return found;
    };
    try {
      const root = await reader.root(version.commitment, version.bytes);
      const entries: VersionEntry[] = [];
      for await (const entry of reader.entries(root)) entries.push(entry);
      if (!buildVersion(entries, root.settings).rootCommitment.equals(version.commitment)) {
        throw new CertificationError('the version is not the canonical tree of its entries');
      }
      const packs = new Map<string, Buffer>();
      for (const entry of entries) {
        if (isWellKnownName(entry.name) && !this.wellKnownAllow.has(entry.name)) {
          throw new CertificationError(
            `${JSON.stringify(entry.name.slice(0, 200))}: .well-known/ names are not published by this gateway unless its operator allows them (gateway.site.well_known_allow)`,
          );
        }
        const fact = entryFact(entry);
        if (trusted?.entries.has(fact) !== true) await this.checkBytes(entry, packs, segmentsOf);
        checked.add(fact);
      }
      await this.checkSettings(entries, root.settings, packs);
      const tracks = await versionTracks(reader, { ...version, node: root }, segmentsOf);
      const facts = {
        root: version.commitment,
        nodes: cache.seen,
        entries: checked,
        segments,
        tracks,
      };
      return { root, tracks, ...publishSizes(tracks, base), facts };
    } catch (err) {
      if (err instanceof VersionFormatError) throw new CertificationError(err.message);
      throw err;
    }
  }

  /** The tracks of a version certified before (the base of the next one). */
  async tracksOf(version: VersionRef): Promise<TrackSizes> {
    const reader = new VersionReader(new HoldingsNodeSource(this.holdings));
    const root = await reader.root(version.commitment, version.bytes);
    return versionTracks(reader, { ...version, node: root }, (e) => this.segmentsOf(e));
  }

  private async checkBytes(
    entry: VersionEntry,
    packs: Map<string, Buffer>,
    segmentsOf: SegmentsOf,
  ): Promise<void> {
    const loc = entry.location;
    const name = JSON.stringify(entry.name.slice(0, 200));
    if (loc.kind === 'blob') {
      if (!(await this.holdings.holds(entry.commitment, entry.size))) {
        throw new CertificationError(`${name}: its bytes are not held by the gateway`);
      }
    } else if (loc.kind === 'stream') {
      for (const segment of await segmentsOf(entry)) {
        if (!(await this.holdings.holds(segment.commitment, segment.size))) {
          throw new CertificationError(`${name}: a segment of it is not held by the gateway`);
        }
      }
    } else {
      const bytes = (await this.packBytes(loc.pack, loc.packSize, packs)).subarray(
        loc.offset,
        loc.offset + entry.size,
      );
      if (!commitmentOfBuffer(bytes).commitment.equals(entry.commitment)) {
        throw new CertificationError(
          `${name}: its range of the pack does not match its commitment`,
        );
      }
    }
  }

  private async checkSettings(
    entries: VersionEntry[],
    settings: Buffer,
    packs: Map<string, Buffer>,
  ): Promise<void> {
    const file = entries.find((e) => e.name === SETTINGS_NAME);
    let expected: Buffer = Buffer.alloc(0);
    if (file !== undefined && file.size <= MAX_SETTINGS_BYTES)
      expected = await this.wholeFile(file, packs);
    if (!expected.equals(settings)) {
      throw new CertificationError(
        `the version's settings are not the bytes of its ${SETTINGS_NAME}`,
      );
    }
  }

  private async wholeFile(entry: VersionEntry, packs: Map<string, Buffer>): Promise<Buffer> {
    const loc = entry.location;
    if (loc.kind === 'packed') {
      return (await this.packBytes(loc.pack, loc.packSize, packs)).subarray(
        loc.offset,
        loc.offset + entry.size,
      );
    }
    if (loc.kind === 'blob') return this.holdings.readTrack(entry.commitment, entry.size);
    throw new CertificationError(`${SETTINGS_NAME} cannot be a streamed object`);
  }

  private async packBytes(
    pack: Buffer,
    packSize: number,
    packs: Map<string, Buffer>,
  ): Promise<Buffer> {
    const key = pack.toString('hex');
    let bytes = packs.get(key);
    if (bytes === undefined) {
      bytes = await this.holdings
        .readTrack(pack, packSize)
        .catch(notHeld(`pack ${key} is not held by the gateway`));
      packs.set(key, bytes);
    }
    return bytes;
  }

  private readonly segmentsOf: SegmentsOf = async (entry) => {
    if (entry.location.kind !== 'stream') return [];
    const name = JSON.stringify(entry.name.slice(0, 200));
    const bytes = await this.holdings
      .readTrack(entry.commitment, entry.location.manifestBytes)
      .catch(notHeld(`${name}: its segment manifest is not held by the gateway`));
    const manifest = decodeManifest(bytes);
    if (manifest.size !== entry.size) {
      throw new CertificationError(
        `${name}: its segment manifest is for ${manifest.size} bytes, not ${entry.size}`,
      );
    }
    return manifest.segments.map((s) => ({
      commitment: Buffer.from(s.commitment, 'hex'),
      size: s.size,
    }));
  };
}

/** Nodes through the holdings: a node the gateway does not hold fails certification. */
class HoldingsNodeSource extends VersionNodeSource {
  constructor(private readonly holdings: VersionHoldings) {
    super();
  }

  read(commitment: Buffer, bytes: number): Promise<Buffer> {
    return this.holdings
      .readTrack(commitment, bytes)
      .catch(notHeld(`manifest node ${commitment.toString('hex')} is not held by the gateway`));
  }
}

/**
 * A failed read as the certifier's refusal: a track the gateway does not hold (the writer
 * uploads it). A stored copy that fails verification is the operator's to repair, not the
 * writer's: its IntegrityError goes on, naming the track.
 */
function notHeld(reason: string): (err: unknown) => never {
  return (err) => {
    if (err instanceof IntegrityError) throw err;
    throw new CertificationError(reason);
  };
}
