import { PublicKey } from '@solana/web3.js';
import { createHash } from 'node:crypto';
import type { TapeRecord } from '../chain/account-layouts';

/**
 * Version bytes are uploaded before any version names them, so they belong to no account. Each
 * is recorded in the track store's reference index under a *staging owner*: an address derived
 * from the tape and the version the bytes are staged on, which is never an account. The
 * collector finds no account behind it and keeps the bytes for `storage.gc.pending_grace_secs`
 * (docs/tracks.md, "Garbage collection"); staged references are recorded with the `segment`
 * role, so the index's per-owner sum bounds them atomically (also across writer replicas).
 */
export function stagingOwner(tape: PublicKey, version: number): string {
  const v = Buffer.alloc(8);
  v.writeBigUInt64LE(BigInt(version));
  const digest = createHash('sha256')
    .update('tape-staged-v1')
    .update(tape.toBuffer())
    .update(v)
    .digest();
  return new PublicKey(digest).toBase58();
}

/**
 * Staged bytes beyond the capacity a tape has left: room for a version's manifest nodes, which
 * the program charges (version bytes) like any other bytes, plus the skew of a retried upload.
 */
export const STAGING_SLACK_BYTES = 1024 * 1024;

/**
 * Bytes a tape may stage on its current version: what its capacity has left after the kept
 * versions (`kept_bytes`) and the per-file tracks (`used`), plus the slack. A Publish starts a
 * new staging owner (the version number moves), so bytes staged for a version that was never
 * published stop counting then and are collected after the pending grace.
 */
export function stagingBudget(tape: Pick<TapeRecord, 'capacity' | 'used' | 'keptBytes'>): number {
  return Math.max(0, tape.capacity - tape.used - tape.keptBytes) + STAGING_SLACK_BYTES;
}
