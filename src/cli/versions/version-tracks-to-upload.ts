import { commitmentToHex } from '../../tracks/commitment';
import { splitFileIntoTracks } from '../../tracks/track-layout';
import type { BuiltVersion } from '../../versions/version-builder';
import type { ChangedFile, VersionPlan } from '../../versions/version-planner';
import { CliError } from '../cli-error';
import type { UploadBody } from '../deploy/gateway-client';

/** One track a version needs the gateway to hold: its commitment, and where its bytes are. */
export interface TrackToUpload {
  commitment: string;
  size: number;
  body: UploadBody;
  /** What it is, for progress lines and errors: a file's name, `pack 1/2`, `node`, `root`. */
  label: string;
  /** The root goes last: nothing names a version before all its bytes are there. */
  isRoot: boolean;
}

/**
 * Every track a planned version adds (docs/versions.md, "What a version holds"): its new packs,
 * its nodes, the own tracks of files not packed (a blob, or segments and their manifest,
 * re-hashed from disk so a file changed since planning is caught here), then the root. Tracks
 * the base version already had are among them only when the plan reuses none of their bytes;
 * the gateway's `missing` answer removes what it holds anyway.
 */
export async function tracksToUpload(
  plan: VersionPlan,
  built: BuiltVersion,
  pathOf: (file: ChangedFile) => string,
  segmentBytes: number,
): Promise<TrackToUpload[]> {
  const out = new Map<string, TrackToUpload>();
  const add = (commitment: Buffer, body: UploadBody, label: string, isRoot = false) => {
    const size = 'bytes' in body ? body.bytes.length : body.size;
    const hex = commitmentToHex(commitment);
    if (!out.has(hex)) out.set(hex, { commitment: hex, size, body, label, isRoot });
  };
  plan.packs.forEach((pack, i) =>
    add(pack.commitment, { bytes: pack.bytes }, `pack-${i + 1}-of-${plan.packs.length}`),
  );
  for (const node of built.nodes)
    add(
      node.commitment,
      { bytes: node.bytes },
      `node-${commitmentToHex(node.commitment).slice(0, 12)}`,
    );
  for (const file of plan.tracks) {
    const path = pathOf(file);
    const layout = await splitFileIntoTracks(path, segmentBytes);
    const own = layout.kind === 'blob' ? layout.digest : layout.manifestDigest;
    if (layout.size !== file.size || !own.commitment.equals(file.commitment)) {
      throw new CliError(`${path} changed since it was read; run the publish again`);
    }
    if (layout.kind === 'blob') {
      add(own.commitment, { path, start: 0, size: layout.size }, file.name);
      continue;
    }
    layout.segments.forEach((s, i) =>
      add(s.commitment, { path, start: s.offset, size: s.size }, `${file.name}#${i + 1}`),
    );
    add(own.commitment, { bytes: layout.manifestBytes }, `${file.name}#manifest`);
  }
  add(built.rootCommitment, { bytes: built.rootBytes }, 'version-root', true);
  return [...out.values()];
}
