import { commitmentOfBuffer, commitmentToHex } from '../../tracks/commitment';
import { VersionEntry, VersionFormatError } from '../../versions/version-entry';
import { VersionRoot, decodeRoot } from '../../versions/version-nodes';
import { VersionNodeSource, VersionReader } from '../../versions/version-reader';

/** A version as a publisher plans on it: every entry, the settings, and the manifest's tracks. */
export interface DownloadedVersion {
  root: VersionRoot;
  entries: VersionEntry[];
  settings: Buffer;
  /** The compiled rules its root carries (docs/versions.md). */
  rules: Buffer;
  /** Commitment hex → length of the root and every node (what the next version may share). */
  manifestTracks: Map<string, number>;
}

/** The gateway's answer does not prove the version the chain names. */
export class UntrustedVersionError extends Error {}

/**
 * Splits `GET /versions/{tape}/{root}`'s body (`u32le length, bytes`, the root first;
 * docs/versions.md, "Routes") and checks it against the root commitment the chain names: the
 * first part must hash to it, and every node is found by the commitment of its own bytes and
 * checked by the reader against the branch that names it. A gateway can refuse to answer, but
 * not change a single entry.
 */
export async function verifyVersionDownload(
  root: Buffer,
  body: Buffer,
): Promise<DownloadedVersion> {
  const parts = splitFrames(body);
  if (parts.length === 0 || !commitmentOfBuffer(parts[0]).commitment.equals(root)) {
    throw new UntrustedVersionError(
      `the gateway's version does not hash to the root on chain (${commitmentToHex(root)})`,
    );
  }
  const nodes = new Map<string, Buffer>();
  const manifestTracks = new Map<string, number>([[commitmentToHex(root), parts[0].length]]);
  for (const part of parts.slice(1)) {
    const hex = commitmentToHex(commitmentOfBuffer(part).commitment);
    nodes.set(hex, part);
    manifestTracks.set(hex, part.length);
  }
  const reader = new VersionReader(new VerifiedNodes(nodes));
  let decoded: VersionRoot;
  const entries: VersionEntry[] = [];
  try {
    decoded = decodeRoot(parts[0]);
    for await (const entry of reader.entries(decoded)) entries.push(entry);
    // The commits tree too: the next version shares its unchanged nodes.
    for await (const _node of reader.nodes(decoded));
  } catch (err) {
    if (err instanceof VersionFormatError) {
      throw new UntrustedVersionError(`the gateway's version does not decode: ${err.message}`);
    }
    throw err;
  }
  return {
    root: decoded,
    entries,
    settings: decoded.settings,
    rules: decoded.rules,
    manifestTracks,
  };
}

/** Only the first frame (the root) of a download: enough for its entry count and sizes. */
export function rootFrame(soFar: Buffer): Buffer | undefined {
  if (soFar.length < 4) return undefined;
  const length = soFar.readUInt32LE(0);
  return soFar.length >= 4 + length ? soFar.subarray(4, 4 + length) : undefined;
}

/** The nodes of a download, by the commitment of their own bytes. */
class VerifiedNodes extends VersionNodeSource {
  constructor(private readonly nodes: Map<string, Buffer>) {
    super();
  }

  read(commitment: Buffer, bytes: number): Promise<Buffer> {
    const found = this.nodes.get(commitmentToHex(commitment));
    if (found === undefined || found.length !== bytes) {
      return Promise.reject(
        new UntrustedVersionError(
          `the gateway's version lacks node ${commitmentToHex(commitment)} of ${bytes} bytes`,
        ),
      );
    }
    return Promise.resolve(found);
  }
}

function splitFrames(body: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    if (at + 4 > body.length) throw new UntrustedVersionError("the gateway's version is cut short");
    const length = body.readUInt32LE(at);
    if (at + 4 + length > body.length) {
      throw new UntrustedVersionError("the gateway's version is cut short");
    }
    parts.push(body.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return parts;
}
