import { Injectable } from '@nestjs/common';
import { TrackStore } from '../tracks/track-store';
import { VersionCertifier } from '../versions/version-certifier';
import { TrackSizes } from '../versions/version-tracks';
import { uploadErrors } from './upload-error';

/** Versions whose tracks are kept in memory, at most, and their tracks in all. */
const MAX_CACHED_VERSIONS = 512;
const MAX_CACHED_TRACKS = 1_000_000;

/**
 * The tracks of the versions a tape keeps: the base a Publish's added bytes are counted
 * against, and the sets whose union is the Publish's `kept_bytes` (docs/versions.md, "What a
 * version holds", "Kept set"). Versions are immutable, so the answer is cached by root
 * commitment: the certifier hands in each version it certifies (`remember`), so a kept
 * version is walked only when this gateway never certified it or forgot it (a restart, the
 * bound); a 100,000-name version takes seconds to walk once.
 */
@Injectable()
export class VersionBaseTracks {
  private readonly cache = new Map<string, { tracks: Promise<TrackSizes>; weight: number }>();
  private weight = 0;

  constructor(
    private readonly certifier: VersionCertifier,
    private readonly store: TrackStore,
  ) {}

  /** Whether the tracks of `root` are at hand (no walk). */
  known(root: Buffer): boolean {
    return this.cache.has(root.toString('hex'));
  }

  /** The tracks of a version this gateway just certified. */
  remember(root: Buffer, tracks: TrackSizes): void {
    this.put(root.toString('hex'), Promise.resolve(tracks), tracks.size);
  }

  tracksOf(root: Buffer): Promise<TrackSizes> {
    const key = root.toString('hex');
    const found = this.cache.get(key);
    if (found !== undefined) {
      // Used: it goes last, so the versions of tapes that publish stay.
      this.cache.delete(key);
      this.cache.set(key, found);
      return found.tracks;
    }
    const walked = this.walk(root);
    this.put(key, walked, 0);
    walked.then(
      (tracks) => this.weigh(key, walked, tracks.size),
      // A failed walk (bytes not held yet on a shared store) is asked again next time.
      () => this.drop(key, walked),
    );
    return walked;
  }

  private put(key: string, tracks: Promise<TrackSizes>, weight: number): void {
    const old = this.cache.get(key);
    if (old !== undefined) this.weight -= old.weight;
    this.cache.delete(key);
    this.cache.set(key, { tracks, weight });
    this.weight += weight;
    this.trim();
  }

  private weigh(key: string, tracks: Promise<TrackSizes>, weight: number): void {
    const entry = this.cache.get(key);
    if (entry?.tracks !== tracks) return;
    this.weight += weight - entry.weight;
    entry.weight = weight;
    this.trim();
  }

  private drop(key: string, tracks: Promise<TrackSizes>): void {
    const entry = this.cache.get(key);
    if (entry?.tracks !== tracks) return;
    this.cache.delete(key);
    this.weight -= entry.weight;
  }

  private trim(): void {
    while (
      this.cache.size > 1 &&
      (this.cache.size > MAX_CACHED_VERSIONS || this.weight > MAX_CACHED_TRACKS)
    ) {
      const oldest = this.cache.keys().next().value!;
      this.weight -= this.cache.get(oldest)!.weight;
      this.cache.delete(oldest);
    }
  }

  private async walk(root: Buffer): Promise<TrackSizes> {
    // The root's length is not on chain; the stored one is untrusted but the commitment binds
    // it, so a wrong length fails the verified read.
    const bytes = await this.store.storedSize(root);
    if (bytes === undefined) {
      throw uploadErrors.unavailable(
        `version root ${root.toString('hex')} of the tape is not held by this gateway's store; try again`,
      );
    }
    return this.certifier.tracksOf({ commitment: root, bytes });
  }
}
