import { PublicKey } from '@solana/web3.js';
import { TrackKind, TrackRecord } from '../../chain/account-layouts';
import { NamedRecord } from '../../chain/chain-reader';
import { TrackLayout } from '../../tracks/track-layout';
import { ENTRY_NAME, SiteFile } from './site-scanner';

/** A file with its full track layout (the per-file path's input). */
export interface HashedFile extends Omit<SiteFile, 'stamp'> {
  layout: TrackLayout;
  commitment: Buffer;
}

/** A track this deploy needs: written on chain unless it exists, uploaded unless certified. */
export interface PlannedTrack {
  commitmentHex: string;
  commitment: Buffer;
  address: PublicKey;
  size: number;
  kind: TrackKind;
  contentType: string;
  layout: TrackLayout;
  /** A file holding the bytes (several files with the same bytes share one track). */
  path: string;
  exists: boolean;
  certified: boolean;
}

export interface PlannedFile extends HashedFile {
  track: PlannedTrack | null;
  /** The name as the tape holds it now, if it does. */
  current?: NamedRecord;
}

export interface DeployPlan {
  files: PlannedFile[];
  unchanged: PlannedFile[];
  /** Changed files other than the entry: SetName once their tracks are certified. */
  publish: PlannedFile[];
  /** `index.html` when it changed: published last, alone, once everything else is. */
  entry: PlannedFile | null;
  /** Tracks not on chain yet (WriteTrack). */
  toWrite: PlannedTrack[];
  /** Tracks whose bytes the gateway has not certified yet (upload). */
  toUpload: PlannedTrack[];
  /** Names on the tape that the site no longer has (removed by `--prune`). */
  stale: NamedRecord[];
  /** Capacity the new tracks take. */
  newBytes: number;
}

export interface PlanInput {
  files: HashedFile[];
  names: NamedRecord[];
  /** The on-chain record of each track a changed file needs, by commitment hex (null: none). */
  tracks: Map<string, TrackRecord | null>;
  trackAddress: (commitment: Buffer) => PublicKey;
}

/**
 * Compares the site on disk with what the tape holds. A file is unchanged when its name points
 * at a track with the same commitment and the same content type; everything else is published.
 * Tracks are content-addressed, so files with equal bytes share one upload.
 */
export function planDeploy(input: PlanInput): DeployPlan {
  const byName = new Map(input.names.map((n) => [n.name, n]));
  const tracks = new Map<string, PlannedTrack>();
  const files: PlannedFile[] = [];
  const unchanged: PlannedFile[] = [];
  const publish: PlannedFile[] = [];
  let entry: PlannedFile | null = null;
  for (const file of input.files) {
    const current = byName.get(file.name);
    if (
      current &&
      current.commitment.equals(file.commitment) &&
      current.contentType === file.contentType
    ) {
      const planned = { ...file, track: null, current };
      files.push(planned);
      unchanged.push(planned);
      continue;
    }
    const hex = file.commitment.toString('hex');
    let track = tracks.get(hex);
    if (!track) {
      const record = input.tracks.get(hex) ?? null;
      track = {
        commitmentHex: hex,
        commitment: file.commitment,
        address: input.trackAddress(file.commitment),
        size: file.layout.size,
        kind: file.layout.kind === 'blob' ? TrackKind.Blob : TrackKind.Manifest,
        contentType: file.contentType,
        layout: file.layout,
        path: file.path,
        exists: record !== null,
        certified: record?.certified ?? false,
      };
      tracks.set(hex, track);
    }
    const planned: PlannedFile = { ...file, track, current };
    files.push(planned);
    if (file.name === ENTRY_NAME) entry = planned;
    else publish.push(planned);
  }
  const local = new Set(input.files.map((f) => f.name));
  const toWrite = [...tracks.values()].filter((t) => !t.exists);
  return {
    files,
    unchanged,
    publish,
    entry,
    toWrite,
    toUpload: [...tracks.values()].filter((t) => !t.certified),
    stale: input.names.filter((n) => !local.has(n.name)),
    newBytes: toWrite.reduce((sum, t) => sum + t.size, 0),
  };
}

/** Commitments (hex) whose track records the planner needs: those of files that changed. */
export function commitmentsToLookUp(files: HashedFile[], names: NamedRecord[]): Buffer[] {
  const byName = new Map(names.map((n) => [n.name, n]));
  const seen = new Map<string, Buffer>();
  for (const file of files) {
    const current = byName.get(file.name);
    if (current?.commitment.equals(file.commitment) && current.contentType === file.contentType)
      continue;
    seen.set(file.commitment.toString('hex'), file.commitment);
  }
  return [...seen.values()];
}
