import type { TapeRecord } from '../chain/account-layouts';

/**
 * What a tape may have in the track store beyond its capacity: room for a version's manifest
 * nodes, which the program charges (version bytes) like any other bytes, plus the skew of a
 * retried upload. The documented constant of docs/versions.md, "Garbage collection".
 */
export const STAGING_SLACK_BYTES = 1024 * 1024;

/**
 * The most bytes a tape may have in the track store, staged and kept together (docs/uploads.md,
 * "Version bytes"): every distinct blob any owner of the tape references (its kept versions, a
 * dropped version not collected yet, bytes staged for the next one, its per-file tracks) counts
 * once. Version bytes are staged under the tape's staging owner (`staged:<tape>:<version>`,
 * src/tracks/gc/version-owner.ts) within this bound, checked atomically with the claim, so
 * stage-then-abandon cannot pile up however often it is repeated.
 */
export function tapeStoreBound(tape: Pick<TapeRecord, 'capacity'>): number {
  return tape.capacity + STAGING_SLACK_BYTES;
}
