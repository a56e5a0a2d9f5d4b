import { Injectable } from '@nestjs/common';
import { TrackStore } from '../tracks/track-store';
import { VersionCertifier } from '../versions/version-certifier';
import { TrackSizes } from '../versions/version-tracks';
import { uploadErrors } from './upload-error';

/** Versions whose tracks are kept in memory: a tape's base changes only when it publishes. */
const MAX_CACHED_VERSIONS = 64;

/**
 * The tracks of a tape's current version, the base a Publish's added bytes are counted
 * against (docs/versions.md, "What a version holds"). Versions are immutable, so the answer is
 * cached by root commitment; a 100,000-name version takes seconds to walk once.
 */
@Injectable()
export class VersionBaseTracks {
  private readonly cache = new Map<string, Promise<TrackSizes>>();

  constructor(
    private readonly certifier: VersionCertifier,
    private readonly store: TrackStore,
  ) {}

  tracksOf(root: Buffer): Promise<TrackSizes> {
    const key = root.toString('hex');
    let found = this.cache.get(key);
    if (found === undefined) {
      found = this.walk(root);
      this.cache.set(key, found);
      // A failed walk (bytes not held yet on a shared store) is asked again next time.
      found.catch(() => this.cache.delete(key));
      if (this.cache.size > MAX_CACHED_VERSIONS) {
        this.cache.delete(this.cache.keys().next().value!);
      }
    }
    return found;
  }

  private async walk(root: Buffer): Promise<TrackSizes> {
    // The root's length is not on chain; the stored one is untrusted but the commitment binds
    // it, so a wrong length fails the verified read.
    const bytes = await this.store.storedSize(root);
    if (bytes === undefined) {
      throw uploadErrors.unavailable(
        "the tape's current version is not held by this gateway's store; try again",
      );
    }
    return this.certifier.tracksOf({ commitment: root, bytes });
  }
}
