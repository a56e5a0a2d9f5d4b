import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TrackKind } from '../../tracks/track-kind';
import { StorageConfig } from '../../config/storage.config';
import { commitmentOfBuffer, commitmentToHex } from '../../tracks/commitment';
import { encodeManifest, MANIFEST_TYPE, MANIFEST_VERSION } from '../../tracks/manifest';
import { TrackStore } from '../../tracks/track-store';
import { sweepOldEntries } from './spool-sweep';
import { receiveInMemory } from './memory-body';
import { ByteBudget } from './byte-budget';
import { removeFiles, SegmentSpoolWriter } from './segment-spool-writer';
import type { SpooledObject } from './spooled-object';
import { makeDirectoryAsync } from '../../config/directories';

/** Bodies up to this size may be received into memory instead of a spool file. */
const MEMORY_BODY_MAX_BYTES = 1024 * 1024;
/** Memory all bodies received into memory at once may hold; past it, bodies go to files. */
const MEMORY_BUDGET_BYTES = 64 * 1024 * 1024;

/** Spool files older than this are left over from a crash (younger ones may be in use). */
const STALE_SPOOL_MS = 60 * 60 * 1000;

/**
 * The write path's staging area, `<data_dir>/s3-spool/`. A track's commitment is known only
 * after its last byte, and the track store needs it before the first (TrackStore.put), so a body
 * is received into segment files while it is hashed, and stored from them once it has ended and
 * passed every check. Nothing reaches the store, let alone the chain, from a body that failed or
 * was cut off: its files are removed.
 */
@Injectable()
export class ObjectSpool implements OnModuleInit {
  readonly dir: string;
  private readonly logger = new Logger('s3-spool');
  private readonly memory = new ByteBudget(MEMORY_BUDGET_BYTES);

  constructor(
    private readonly storage: StorageConfig,
    private readonly tracks: TrackStore,
  ) {
    this.dir = resolve(storage.data_dir, 's3-spool');
  }

  async onModuleInit(): Promise<void> {
    await makeDirectoryAsync(this.dir);
    const swept = await sweepOldEntries(this.dir, STALE_SPOOL_MS);
    if (swept > 0) this.logger.log(`removed ${swept} spool files left over from an earlier run`);
  }

  /**
   * Receives `body` to its end (rejecting with its error, leaving no file) and hashes it. A body
   * declared small enough to be one segment is held in memory when the shared budget allows:
   * most files of a site are small, and a spool file costs several file-system round trips.
   */
  async spool(body: Readable, declaredSize?: number): Promise<SpooledObject> {
    if (
      declaredSize !== undefined &&
      declaredSize <= Math.min(MEMORY_BODY_MAX_BYTES, this.storage.segment_bytes) &&
      this.memory.reserve(declaredSize)
    ) {
      try {
        return await receiveInMemory(body, declaredSize);
      } finally {
        this.memory.release(declaredSize);
      }
    }
    const writer = new SegmentSpoolWriter(this.dir, this.storage.segment_bytes);
    try {
      await pipeline(body, writer);
    } catch (error) {
      // pipeline rejects as soon as a stream fails; the writer's files go before we answer.
      writer.destroy();
      await writer.cleanedUp;
      throw error;
    }
    const segments = writer.segments;
    if (segments.length === 1) {
      const [only] = segments;
      return { size: only.size, kind: TrackKind.Blob, commitment: only.commitment, segments };
    }
    const manifestBytes = encodeManifest({
      type: MANIFEST_TYPE,
      version: MANIFEST_VERSION,
      size: writer.size,
      segment_bytes: this.storage.segment_bytes,
      segments: segments.map((s) => ({ size: s.size, commitment: commitmentToHex(s.commitment) })),
    });
    return {
      size: writer.size,
      kind: TrackKind.Manifest,
      commitment: commitmentOfBuffer(manifestBytes).commitment,
      segments,
      manifestBytes,
    };
  }

  /**
   * Puts the object's tracks into the store: segments first, the manifest last (a reader that
   * finds the manifest finds its segments). Tracks already stored are skipped; the store
   * re-verifies everything it writes. `owner` (the tape and the track account the object will
   * be published as) is recorded for each track before it is looked for, so the store's
   * garbage collector keeps the bytes while that track lives (docs/tracks.md).
   */
  async store(object: SpooledObject, owner?: { tape: string; track: string }): Promise<void> {
    const claim = async (commitment: Buffer, size: number, role: 'track' | 'segment') => {
      if (owner) await this.tracks.claim({ commitment, size, role, ...owner });
    };
    const streamed = object.manifestBytes !== undefined;
    for (const segment of object.segments) {
      await claim(segment.commitment, segment.size, streamed ? 'segment' : 'track');
      if (await this.tracks.has(segment.commitment)) continue;
      const bytes = segment.bytes
        ? Readable.from([segment.bytes])
        : createReadStream(segment.path!);
      await this.tracks.put(segment.commitment, segment.size, bytes);
    }
    if (object.manifestBytes) await claim(object.commitment, object.manifestBytes.length, 'track');
    if (object.manifestBytes && !(await this.tracks.has(object.commitment))) {
      await this.tracks.put(
        object.commitment,
        object.manifestBytes.length,
        Readable.from([object.manifestBytes]),
      );
    }
  }

  async discard(object: SpooledObject): Promise<void> {
    await removeFiles(object.segments.flatMap((s) => (s.path ? [s.path] : [])));
  }
}
