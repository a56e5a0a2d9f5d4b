import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { StorageConfig } from '../config/storage.config';
import { commitmentFromHex, isCommitmentHex } from '../tracks/commitment';
import { TrackGarbageCollector } from '../tracks/gc/track-gc.service';
import { stagingOwner } from '../tracks/gc/version-owner';
import { MAX_MANIFEST_BYTES } from '../tracks/manifest';
import { TrackClaim, TrackStore } from '../tracks/track-store';
import { putClaimed } from './claimed-put';
import { tapeStoreBound } from './staging';
import { TapeWriterAccess } from './tape-writer-access';
import { SignedHeaders } from './upload-auth';
import { uploadErrors } from './upload-error';
import { UploadSlots } from './upload-slots';
import { requestMessage, versionUploadMessage } from './version-request-auth';

export interface VersionUploadRequest extends SignedHeaders {
  tape: string;
  commitment: string;
  contentLength: number | undefined;
  body: Readable;
  client: string;
}

export interface VersionUploadResult {
  tape: string;
  commitment: string;
  size: number;
  staged: true;
}

/** At most this many commitments per `missing` question (a 1,000-file site asks once). */
export const MAX_MISSING_QUERY = 4096;
const MISSING_LOOKUPS_AT_ONCE = 32;

/**
 * The bytes of versions (docs/uploads.md, "Version bytes"): any track a version may reference
 * (a blob, a pack, a node or root, a segment manifest, a segment), uploaded before any version
 * names it and without any account on chain. The bytes are verified while streamed and staged
 * for the tape (staging.ts) within its bound in the store; Publish certifies them later. A tape
 * at its bound first has its dropped versions' and superseded uploads' bytes collected
 * (`TrackGarbageCollector.collectTape`), then the claim is tried again.
 */
@Injectable()
export class VersionUploadService {
  constructor(
    private readonly access: TapeWriterAccess,
    private readonly store: TrackStore,
    private readonly storage: StorageConfig,
    private readonly slots: UploadSlots,
    private readonly gc: TrackGarbageCollector,
  ) {}

  /** One track's bytes, holding a client slot and a tape slot until it ends (storage.uploads). */
  upload(req: VersionUploadRequest): Promise<VersionUploadResult> {
    return this.slots.holding(req.client, (holdTape) => this.uploadHolding(req, holdTape));
  }

  private async uploadHolding(
    req: VersionUploadRequest,
    holdTape: (tape: string) => void,
  ): Promise<VersionUploadResult> {
    if (!isCommitmentHex(req.commitment)) {
      throw uploadErrors.badRequest('the commitment must be 64 lowercase hex digits');
    }
    const size = req.contentLength;
    if (size === undefined) throw uploadErrors.badRequest('Content-Length is required');
    if (size > this.maxTrackBytes) {
      throw uploadErrors.tooLarge(`one track upload is at most ${this.maxTrackBytes} bytes`);
    }
    const { address, tape } = await this.access.authorize(req.tape, req, (timestamp) =>
      versionUploadMessage({ tape: req.tape, commitment: req.commitment, size, timestamp }),
    );
    holdTape(req.tape);
    const bound = tapeStoreBound(tape);
    await putClaimed(
      this.store,
      {
        commitment: commitmentFromHex(req.commitment),
        track: stagingOwner(address, tape.latestVersion),
        tape: req.tape,
        role: 'segment',
        size,
      },
      req.body,
      {
        maxTapeBytes: bound,
        makeRoom: () => this.gc.collectTape(req.tape),
        overBudget: () =>
          uploadErrors.tooLarge(
            `insufficient capacity: the tape's kept versions and staged bytes would pass ${bound} bytes in the gateway's store; resize it (tape resize) or publish smaller`,
          ),
      },
    );
    this.gc.watch(req.tape);
    return { tape: req.tape, commitment: req.commitment, size, staged: true };
  }

  /**
   * Which of these commitments the gateway's store lacks (the writer uploads only those). Each
   * one it holds is staged for the tape (a reference under its staging owner, within the tape's
   * bound) before it is answered as held, so it cannot be collected between this answer and the
   * Publish: claim, then look again, as every upload does. One the tape's bound cannot take is
   * answered as lacking (its upload then says why).
   */
  async missing(tapeText: string, headers: SignedHeaders, body: Buffer): Promise<string[]> {
    const { address, tape } = await this.access.authorize(tapeText, headers, (timestamp) =>
      requestMessage({ route: 'missing', tape: tapeText, body, timestamp }),
    );
    const commitments = parseMissingQuery(body);
    const owner = stagingOwner(address, tape.latestVersion);
    const limits = { maxTapeBytes: tapeStoreBound(tape) };
    const claimOf = (hex: string, size: number): TrackClaim => ({
      commitment: commitmentFromHex(hex),
      track: owner,
      tape: tapeText,
      role: 'segment',
      size,
    });
    const sizes = await this.lookUp(commitments, (hex) => this.store.storedSize(hex));
    let refused: TrackClaim[] = [];
    const claimed: TrackClaim[] = [];
    for (const hex of commitments) {
      const size = sizes.get(hex);
      if (size === undefined) continue;
      const claim = claimOf(hex, size);
      ((await this.store.claim(claim, limits)).accepted ? claimed : refused).push(claim);
    }
    if (refused.length > 0) {
      await this.gc.collectTape(tapeText);
      const again = refused;
      refused = [];
      for (const claim of again) {
        ((await this.store.claim(claim, limits)).accepted ? claimed : refused).push(claim);
      }
    }
    if (claimed.length > 0) this.gc.watch(tapeText);
    // Claimed, then looked for again: a pass may have deleted one before the claim.
    const held = await this.lookUp(
      claimed.map((c) => c.commitment.toString('hex')),
      (hex) => this.store.has(hex),
    );
    return commitments.filter((hex) => held.get(hex) !== true);
  }

  /** One question per commitment, a few at once (a shared store answers with a round trip). */
  private async lookUp<T>(
    hexes: string[],
    ask: (commitment: Buffer) => Promise<T>,
  ): Promise<Map<string, T>> {
    const answers = new Map<string, T>();
    for (let i = 0; i < hexes.length; i += MISSING_LOOKUPS_AT_ONCE) {
      const batch = hexes.slice(i, i + MISSING_LOOKUPS_AT_ONCE);
      const found = await Promise.all(batch.map((hex) => ask(commitmentFromHex(hex))));
      batch.forEach((hex, j) => answers.set(hex, found[j]));
    }
    return answers;
  }

  /** A segment, a pack (4 MiB) or a segment manifest: whichever bound is largest. */
  private get maxTrackBytes(): number {
    return Math.max(this.storage.segment_bytes, MAX_MANIFEST_BYTES);
  }
}

/** `{"commitments": ["<hex>", ...]}`, at most MAX_MISSING_QUERY distinct well-formed entries. */
export function parseMissingQuery(body: Buffer): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw uploadErrors.badRequest('the body is not JSON');
  }
  const list = (parsed as { commitments?: unknown } | null)?.commitments;
  if (!Array.isArray(list) || !list.every(isCommitmentHex)) {
    throw uploadErrors.badRequest('"commitments" must be a list of 64-digit lowercase hex');
  }
  if (list.length > MAX_MISSING_QUERY) {
    throw uploadErrors.tooLarge(`at most ${MAX_MISSING_QUERY} commitments per question`);
  }
  return [...new Set(list)];
}
