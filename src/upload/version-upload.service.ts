import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { StorageConfig } from '../config/storage.config';
import { commitmentFromHex, isCommitmentHex } from '../tracks/commitment';
import { MAX_MANIFEST_BYTES } from '../tracks/manifest';
import { TrackStore } from '../tracks/track-store';
import { putClaimed } from './claimed-put';
import { stagingBudget, stagingOwner } from './staging';
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
 * for the tape (staging.ts) within what its capacity has left; Publish certifies them later.
 */
@Injectable()
export class VersionUploadService {
  constructor(
    private readonly access: TapeWriterAccess,
    private readonly store: TrackStore,
    private readonly storage: StorageConfig,
    private readonly slots: UploadSlots,
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
    const budget = stagingBudget(tape);
    await putClaimed(
      this.store,
      {
        commitment: commitmentFromHex(req.commitment),
        track: stagingOwner(address, tape.version),
        tape: req.tape,
        role: 'segment',
        size,
      },
      req.body,
      {
        maxOwnerSegmentBytes: budget,
        overBudget: () =>
          uploadErrors.tooLarge(
            `insufficient capacity: the tape can stage ${budget} bytes beside its kept versions; resize it (tape resize) or publish smaller`,
          ),
      },
    );
    return { tape: req.tape, commitment: req.commitment, size, staged: true };
  }

  /** Which of these commitments the gateway's store lacks (the writer uploads only those). */
  async missing(tapeText: string, headers: SignedHeaders, body: Buffer): Promise<string[]> {
    await this.access.authorize(tapeText, headers, (timestamp) =>
      requestMessage({ route: 'missing', tape: tapeText, body, timestamp }),
    );
    const commitments = parseMissingQuery(body);
    const lacking: string[] = [];
    // A shared store answers each question with a round trip: ask a few at once.
    for (let i = 0; i < commitments.length; i += MISSING_LOOKUPS_AT_ONCE) {
      const batch = commitments.slice(i, i + MISSING_LOOKUPS_AT_ONCE);
      const held = await Promise.all(batch.map((hex) => this.store.has(commitmentFromHex(hex))));
      batch.forEach((hex, j) => {
        if (!held[j]) lacking.push(hex);
      });
    }
    return lacking;
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
