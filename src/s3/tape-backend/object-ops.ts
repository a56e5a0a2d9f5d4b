import { ChangedFile, VersionChange } from '../../versions/version-planner';
import { VersionEntry } from '../../versions/version-entry';
import { checkWriteCondition, S3WriteCondition } from '../handlers/write-conditions';
import { ObjectMetadata } from '../object-metadata';
import { S3BackendNoSuchKeyError } from '../s3-backend';
import { decodeObjectMetadata, encodeObjectMetadata } from './object-metadata-codec';
import { assertEntryFits } from './object-records';

/**
 * One S3 write as a change of a tape's names, applied to whatever version its group is planned
 * on (docs/s3.md, "Writes: group commit"): the bytes are already in the gateway's store, so
 * applying it again on another version (after a lost compare-and-swap) needs nothing but this.
 */
export type ObjectOp =
  | {
      kind: 'put';
      file: Omit<ChangedFile, 'metadata'>;
      /** A small body's bytes as received (to pack without reading them back from the store). */
      bytes?: Buffer;
      metadata: ObjectMetadata;
      condition?: S3WriteCondition;
    }
  | {
      kind: 'copy';
      source: string;
      destination: string;
      /** The copy's content type; undefined: the source's (S3's COPY directive). */
      contentType?: string;
      /** The copy's metadata from the source's (COPY keeps it, REPLACE swaps headers and user). */
      metadata: (source: ObjectMetadata) => ObjectMetadata;
      condition?: S3WriteCondition;
    }
  | { kind: 'delete'; names: string[] };

/** What a write made: the object's commitment and the metadata kept with it (time included). */
export interface WrittenObject {
  commitment: Buffer;
  metadata: ObjectMetadata;
}

export type OpOutcome = { ok: true; written?: WrittenObject } | { ok: false; error: unknown };

interface Staged {
  file: ChangedFile;
  metadata: ObjectMetadata;
}

/**
 * Applies a group's writes, in the order they arrived, to the names of a base version. A write
 * whose condition fails (or whose copy source is absent) is refused alone; the others still
 * apply, each seeing the ones before it (PUT k, DELETE k, PUT k in one group leaves k). `modified`
 * (unix seconds) is every written object's Last-Modified.
 */
export function applyObjectOps(
  base: readonly VersionEntry[],
  ops: readonly ObjectOp[],
  modified: number,
): { change: VersionChange; outcomes: OpOutcome[] } {
  const baseByName = new Map(base.map((e) => [e.name, e]));
  // undefined: untouched (the base's entry, if any); null: removed by the group.
  const touched = new Map<string, Staged | null>();
  const current = (name: string): Staged | null => {
    const staged = touched.get(name);
    if (staged !== undefined) return staged;
    const entry = baseByName.get(name);
    return entry ? stagedOf(entry) : null;
  };
  const etagOf = (name: string): string | null => {
    const now = current(name);
    return now ? (now.metadata.etag ?? now.file.commitment.toString('hex')) : null;
  };
  const write = (name: string, staged: Staged): WrittenObject => {
    const encoded = encodeObjectMetadata(staged.metadata);
    assertEntryFits(name, staged.file.contentType, encoded);
    touched.set(name, { ...staged, file: { ...staged.file, name, metadata: encoded } });
    return { commitment: staged.file.commitment, metadata: staged.metadata };
  };

  const outcomes = ops.map((op): OpOutcome => {
    try {
      switch (op.kind) {
        case 'put': {
          checkWriteCondition(op.condition, etagOf(op.file.name), op.file.name);
          const metadata = { ...op.metadata, modified };
          return { ok: true, written: write(op.file.name, { file: op.file, metadata }) };
        }
        case 'copy': {
          const from = current(op.source);
          if (!from) throw new S3BackendNoSuchKeyError(op.source);
          checkWriteCondition(op.condition, etagOf(op.destination), op.destination);
          const metadata = { ...op.metadata(from.metadata), modified };
          const file = { ...from.file, contentType: op.contentType ?? from.file.contentType };
          return { ok: true, written: write(op.destination, { file, metadata }) };
        }
        case 'delete':
          for (const name of op.names) if (current(name)) touched.set(name, null);
          return { ok: true };
      }
    } catch (error) {
      return { ok: false, error };
    }
  });

  const put: ChangedFile[] = [];
  const remove: string[] = [];
  for (const [name, staged] of touched) {
    if (staged) put.push(staged.file);
    else if (baseByName.has(name)) remove.push(name);
  }
  return { change: { put, remove }, outcomes };
}

/**
 * A base entry as a file to write again (a copy of it): its bytes are where the base has them,
 * so the planner reuses that location whatever layout is named here.
 */
function stagedOf(entry: VersionEntry): Staged {
  const loc = entry.location;
  return {
    file: {
      name: entry.name,
      commitment: entry.commitment,
      size: entry.size,
      contentType: entry.contentType,
      metadata: entry.metadata,
      layout:
        loc.kind === 'stream'
          ? { kind: 'stream', manifestBytes: loc.manifestBytes }
          : { kind: 'blob' },
    },
    metadata: decodeObjectMetadata(entry.metadata),
  };
}
