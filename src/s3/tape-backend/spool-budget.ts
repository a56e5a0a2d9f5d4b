import { Injectable } from '@nestjs/common';
import { S3Config } from '../../config/s3.config';
import { S3BackendSlowDownError } from '../s3-backend';

/** Bytes counted against the budget until released (idempotent). */
export interface SpoolHold {
  readonly tapeAddress: string;
  readonly bytes: number;
  release(): void;
}

/**
 * The bytes the gateway holds for S3 writes that are not stored yet, per tape and in all: the
 * parts of every open multipart upload (on disk under s3-multipart/), and every PutObject or
 * UploadPart body being received. Two limits use it:
 *
 * - per tape, the caller checks that the tape's held bytes (this write included) fit in the
 *   tape's free capacity as read from chain, so one tape's open uploads cannot spool more than
 *   the tape could ever publish, however many uploads or concurrent parts it opens;
 * - per gateway, `reserve` refuses past `gateway.s3.max_spool_bytes` (SlowDown), so all tapes
 *   together cannot fill the gateway's disk, and past one tape's share of it
 *   (`gateway.s3.spool_share_per_tape`), so one tenant cannot take the whole spool from the others.
 *
 * A write reserves before its body is read (Expect: 100-continue clients never send a refused
 * body), so concurrent writes each see the others. The count lives in this process: it is
 * rebuilt from disk at start-up (MultipartSpool), and gateways sharing a data directory do not
 * see each other's.
 */
@Injectable()
export class SpoolBudget {
  private readonly byTape = new Map<string, number>();
  private held = 0;
  readonly limit: number;
  readonly tapeLimit: number;

  constructor(config: S3Config) {
    this.limit = config.max_spool_bytes;
    this.tapeLimit = tapeSpoolLimit(config);
  }

  /** Bytes held over all tapes. */
  get totalBytes(): number {
    return this.held;
  }

  /** Bytes held for one tape: its open uploads' parts and its bodies in flight. */
  tapeBytes(tapeAddress: string): number {
    return this.byTape.get(tapeAddress) ?? 0;
  }

  /** Reserves room for a body about to be received; refused past the gateway's or the tape's limit. */
  reserve(tapeAddress: string, bytes: number): SpoolHold {
    const tapeHeld = this.tapeBytes(tapeAddress);
    if (tapeHeld + bytes > this.tapeLimit) {
      throw new S3BackendSlowDownError(tapeShareMessage(tapeHeld, this.tapeLimit));
    }
    if (this.held + bytes > this.limit) {
      throw new S3BackendSlowDownError(
        `the gateway holds ${this.held} of its ${this.limit} bytes for uploads in progress`,
      );
    }
    return this.hold(tapeAddress, bytes);
  }

  /** Counts bytes already on disk (found at start-up): never refused. */
  hold(tapeAddress: string, bytes: number): SpoolHold {
    this.add(tapeAddress, bytes);
    let released = false;
    return {
      tapeAddress,
      bytes,
      release: () => {
        if (released) return;
        released = true;
        this.add(tapeAddress, -bytes);
      },
    };
  }

  private add(tapeAddress: string, bytes: number): void {
    this.held += bytes;
    const next = (this.byTape.get(tapeAddress) ?? 0) + bytes;
    if (next > 0) this.byTape.set(tapeAddress, next);
    else this.byTape.delete(tapeAddress);
  }
}

/** The bytes one tape may hold in the spool: its share of `max_spool_bytes`. */
export function tapeSpoolLimit(config: S3Config): number {
  return Math.floor(config.max_spool_bytes * config.spool_share_per_tape);
}

export function tapeShareMessage(held: number, limit: number): string {
  return (
    `this tape holds ${held} of the ${limit} bytes one tape may hold for uploads in progress ` +
    '(gateway.s3.spool_share_per_tape): complete or abort some multipart uploads first'
  );
}
