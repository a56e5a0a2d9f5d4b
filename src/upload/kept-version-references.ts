import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { commitmentFromHex } from '../tracks/commitment';
import { TrackGarbageCollector } from '../tracks/gc/track-gc.service';
import { versionOwner } from '../tracks/gc/version-owner';
import { TrackClaim, TrackStore } from '../tracks/track-store';
import type { TrackSizes } from '../versions/version-tracks';
import { publishErrors } from './publish-errors';

/** Claims per batch (one transaction or pipeline each), and lookups in flight at once. */
const CLAIMS_PER_BATCH = 4096;
const LOOKUPS_AT_ONCE = 32;

/**
 * Records a certified version's tracks in the track store's reference index under its version
 * owner (`version:<tape>:<number>:<root hex>`), so the collector keeps them while the tape
 * keeps the version (docs/tracks.md, "Garbage collection"), and has the collector check the tape
 * at its next passes: once the Publish lands, the version two back is dropped and its own bytes
 * go at the first pass after that, whatever the collector's cursor.
 *
 * Claim, then look (as every upload does): the certifier saw the bytes before the claims were
 * recorded, and a collector pass may have deleted bytes no kept version or fresh upload held in
 * between. Once claimed they cannot go (`release` re-checks the index), so each is looked for
 * again; one that went makes the version uncertifiable until it is uploaded again.
 */
@Injectable()
export class KeptVersionReferences {
  constructor(
    private readonly store: TrackStore,
    private readonly gc: TrackGarbageCollector,
  ) {}

  /**
   * A version just certified as `version`: claims its tracks, then checks each is still held.
   * `keptBy`: tracks of the tape's current version whose references this store recorded (the
   * base it certified): they cannot have gone meanwhile, so only the others are looked for.
   */
  async record(
    tape: PublicKey,
    version: number,
    root: Buffer,
    tracks: TrackSizes,
    keptBy?: TrackSizes,
  ): Promise<void> {
    const claims = claimsOf(tape, version, root, tracks);
    await this.claimAll(claims);
    this.gc.watch(tape.toBase58());
    const looks = claims.filter((c) => keptBy?.has(c.commitment.toString('hex')) !== true);
    for (let i = 0; i < looks.length; i += LOOKUPS_AT_ONCE) {
      const batch = looks.slice(i, i + LOOKUPS_AT_ONCE);
      const held = await Promise.all(batch.map((c) => this.store.has(c.commitment)));
      const gone = batch.find((_, j) => !held[j]);
      if (gone) {
        throw publishErrors.notCertified(
          `track ${gone.commitment.toString('hex')} of the version was collected while it was certified; upload it again`,
        );
      }
    }
  }

  /**
   * The tape's current version, the base of the one being certified: it stays kept (as the
   * previous version) after the Publish. Its references are recorded again in case this store
   * never recorded them (the version was certified by another writer, or before versions had
   * references); what this store does not hold it cannot keep, so nothing is looked for.
   */
  refresh(tape: PublicKey, version: number, root: Buffer, tracks: TrackSizes): Promise<void> {
    return this.claimAll(claimsOf(tape, version, root, tracks));
  }

  private async claimAll(claims: TrackClaim[]): Promise<void> {
    for (let i = 0; i < claims.length; i += CLAIMS_PER_BATCH) {
      await this.store.claimMany(claims.slice(i, i + CLAIMS_PER_BATCH));
    }
  }
}

function claimsOf(tape: PublicKey, version: number, root: Buffer, tracks: TrackSizes) {
  const owner = versionOwner(tape, version, root);
  return [...tracks].map(([hex, size]): TrackClaim => ({
    commitment: commitmentFromHex(hex),
    track: owner,
    tape: tape.toBase58(),
    role: 'track',
    size,
  }));
}
