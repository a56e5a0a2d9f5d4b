import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { commitmentFromHex } from '../tracks/commitment';
import { versionOwner } from '../tracks/gc/version-owner';
import { TrackStore } from '../tracks/track-store';
import type { TrackSizes } from '../versions/version-tracks';
import { publishErrors } from './publish-errors';

/** Claims (then lookups) in flight at once: a shared store answers each with a round trip. */
const AT_ONCE = 32;

/**
 * Records a certified version's tracks in the track store's reference index under its version
 * owner (`version:<tape>:<root hex>`), so the collector keeps them while the tape keeps the
 * version (docs/tracks.md, "Garbage collection"). Staging references only last the pending
 * grace; these last as long as the tape's pointer names the root as current or previous.
 *
 * Claim, then look (as every upload does): the certifier saw the bytes before the claims were
 * recorded, and a collector pass may have deleted bytes no kept version or fresh upload held in
 * between. Once claimed they cannot go (`release` re-checks the index), so each is looked for
 * again; one that went makes the version uncertifiable until it is uploaded again.
 */
@Injectable()
export class KeptVersionReferences {
  constructor(private readonly store: TrackStore) {}

  /** A version just certified: claims its tracks, then checks each is still held. */
  record(tape: PublicKey, root: Buffer, tracks: TrackSizes): Promise<void> {
    return this.claimAll(tape, root, tracks, true);
  }

  /**
   * The tape's current version, the base of the one being certified: it stays kept (as the
   * previous version) after the Publish. Its references are recorded again in case this store
   * never recorded them (the version was certified by another writer, or before versions had
   * references); what this store does not hold it cannot keep, so nothing is looked for.
   */
  refresh(tape: PublicKey, root: Buffer, tracks: TrackSizes): Promise<void> {
    return this.claimAll(tape, root, tracks, false);
  }

  private async claimAll(
    tape: PublicKey,
    root: Buffer,
    tracks: TrackSizes,
    look: boolean,
  ): Promise<void> {
    const owner = versionOwner(tape, root);
    const entries = [...tracks];
    for (let i = 0; i < entries.length; i += AT_ONCE) {
      const batch = entries.slice(i, i + AT_ONCE);
      await Promise.all(
        batch.map(([hex, size]) =>
          this.store.claim({
            commitment: commitmentFromHex(hex),
            track: owner,
            tape: tape.toBase58(),
            role: 'track',
            size,
          }),
        ),
      );
      if (!look) continue;
      const held = await Promise.all(batch.map(([hex]) => this.store.has(commitmentFromHex(hex))));
      const gone = batch.find((_, j) => !held[j]);
      if (gone) {
        throw publishErrors.notCertified(
          `track ${gone[0]} of the version was collected while it was certified; upload it again`,
        );
      }
    }
  }
}
