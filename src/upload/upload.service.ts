import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import type { Readable } from 'node:stream';
import { TrackKind, TrackRecord } from '../chain/account-layouts';
import { ChainReader } from '../chain/chain-reader';
import { parseAddress } from '../chain/tape-label';
import { StorageConfig } from '../config/storage.config';
import { KeyBalance } from '../chain/key-balance/key-balance';
import { commitmentFromHex, commitmentToHex, isCommitmentHex } from '../tracks/commitment';
import { decodeManifest, MAX_MANIFEST_BYTES } from '../tracks/manifest';
import { TrackClaim, TrackStore } from '../tracks/track-store';
import { verifyUpload } from './upload-auth';
import { CertificationBatcher } from './certification-batcher';
import { uploadErrors } from './upload-error';
import { UploadSlots } from './upload-slots';
import { putClaimed } from './claimed-put';
import { chainRead, requireActive, requireTapeWriter } from './tape-writer-access';

export interface UploadRequest {
  track: string;
  contentLength: number | undefined;
  signer?: string;
  timestamp?: string;
  signature?: string;
  segment?: string;
  body: Readable;
  /** The client's key (metering's: follows trusted proxies), for the per-client upload cap. */
  client: string;
}

export interface UploadResult {
  track: string;
  commitment: string;
  size: number;
  certified: boolean;
}

/**
 * Accepts the bytes of a track registered on chain: checks who signed, that the tape is
 * active and that the bytes are the ones committed to, stores them, then certifies the track
 * with the gateway's storage-authority key (docs/uploads.md).
 */
@Injectable()
export class UploadService {
  constructor(
    private readonly chain: ChainReader,
    private readonly store: TrackStore,
    private readonly certifier: CertificationBatcher,
    private readonly storage: StorageConfig,
    private readonly slots: UploadSlots,
    private readonly balance: KeyBalance,
  ) {}

  /** One upload, holding a client slot and a tape slot until it ends (storage.uploads). */
  upload(req: UploadRequest): Promise<UploadResult> {
    return this.slots.holding(req.client, (holdTape) => this.uploadHolding(req, holdTape));
  }

  private async uploadHolding(
    req: UploadRequest,
    holdTape: (tape: string) => void,
  ): Promise<UploadResult> {
    const address = parseAddress(req.track);
    if (!address) throw uploadErrors.badRequest('malformed track address');
    if (req.contentLength === undefined)
      throw uploadErrors.badRequest('Content-Length is required');
    // Before any chain read or body byte: a key that cannot pay would fail the certification.
    await this.read(() => this.balance.assertCanPay());
    const trackKey = new PublicKey(address);
    const track = await this.read(() => this.chain.getTrack(trackKey));
    if (!track) throw uploadErrors.notFound('no such track on chain');
    const tape = await this.read(() => this.chain.getTape(track.tape));
    if (!tape) throw uploadErrors.notFound('the track has no tape');
    holdTape(track.tape.toBase58());

    const part = this.describePart(track, req);
    if (req.contentLength !== part.size) {
      throw uploadErrors.badRequest(
        `Content-Length ${req.contentLength} is not the track's size ${part.size}`,
      );
    }
    const claim = {
      tape: track.tape.toBase58(),
      track: address,
      commitment: commitmentToHex(part.commitment),
      size: part.size,
    };
    requireTapeWriter(tape, verifyUpload(claim, req));
    await requireActive(this.chain, tape);

    await this.storeBytes(
      {
        commitment: part.commitment,
        track: address,
        tape: claim.tape,
        role: part.kind === 'segment' ? 'segment' : 'track',
        size: part.size,
      },
      req.body,
      // Segments count against the bytes their manifest track reserved on chain.
      part.kind === 'segment' ? track.size : undefined,
    );
    if (part.kind === 'segment') {
      return { track: address, commitment: claim.commitment, size: part.size, certified: false };
    }
    if (track.kind === TrackKind.Manifest) await this.checkManifest(track, address, part.size);
    if (!track.certified) {
      await this.read(() => this.certifier.certify(trackKey));
    }
    return { track: address, commitment: claim.commitment, size: track.size, certified: true };
  }

  /** What these bytes must be: the blob itself, one segment, or the manifest. */
  private describePart(
    track: TrackRecord,
    req: UploadRequest,
  ): { kind: 'blob' | 'segment' | 'manifest'; commitment: Buffer; size: number } {
    if (req.segment !== undefined) {
      if (track.kind !== TrackKind.Manifest) {
        throw uploadErrors.badRequest('X-Tape-Segment is only for manifest tracks');
      }
      if (!isCommitmentHex(req.segment)) {
        throw uploadErrors.badRequest('X-Tape-Segment must be 64 lowercase hex digits');
      }
      const size = req.contentLength ?? 0;
      if (size > this.storage.segment_bytes) {
        throw uploadErrors.tooLarge(`a segment is at most ${this.storage.segment_bytes} bytes`);
      }
      return { kind: 'segment', commitment: commitmentFromHex(req.segment), size };
    }
    if (track.kind === TrackKind.Manifest) {
      const size = req.contentLength ?? 0;
      if (size > MAX_MANIFEST_BYTES) throw uploadErrors.tooLarge('manifest too large');
      return { kind: 'manifest', commitment: track.commitment, size };
    }
    return { kind: 'blob', commitment: track.commitment, size: track.size };
  }

  /** Stores the bytes under their track's reference; segments within the track's reservation. */
  private async storeBytes(
    claim: TrackClaim,
    body: Readable,
    maxOwnerSegmentBytes: number | undefined,
  ): Promise<void> {
    await putClaimed(
      this.store,
      claim,
      body,
      maxOwnerSegmentBytes === undefined
        ? undefined
        : {
            maxOwnerSegmentBytes,
            overBudget: () =>
              uploadErrors.tooLarge(
                `the segments uploaded for this track would pass its ${maxOwnerSegmentBytes} bytes reserved on chain`,
              ),
          },
    );
  }

  /** A manifest certifies only when it describes the track and all its segments are stored. */
  private async checkManifest(
    track: TrackRecord,
    address: string,
    manifestSize: number,
  ): Promise<void> {
    const bytes = await readAll(
      this.store.openRange(track.commitment, manifestSize, 0, manifestSize - 1),
    );
    let manifest;
    try {
      manifest = decodeManifest(bytes);
    } catch (err) {
      await this.disown(track, address, manifestSize);
      throw uploadErrors.badRequest(`not a manifest: ${(err as Error).message}`);
    }
    if (manifest.size !== track.size) {
      await this.disown(track, address, manifestSize);
      throw uploadErrors.badRequest(
        `the manifest describes ${manifest.size} bytes, the track ${track.size}`,
      );
    }
    let missing = 0;
    for (const segment of manifest.segments) {
      if (!(await this.store.has(commitmentFromHex(segment.commitment)))) missing++;
    }
    if (missing > 0) {
      throw uploadErrors.conflict(`${missing} segments of this manifest are not uploaded yet`);
    }
  }

  /**
   * Withdraws this track's reference to refused manifest bytes; the bytes go only if no other
   * track references them (the same bytes may be another tape's file or manifest).
   */
  private async disown(track: TrackRecord, address: string, size: number): Promise<void> {
    const reference = { track: address, tape: track.tape.toBase58(), size, recordedAt: 0 };
    await this.store.release(track.commitment, [{ ...reference, role: 'track' }], Date.now() + 1);
  }

  private read<T>(call: () => Promise<T>): Promise<T> {
    return chainRead(call);
  }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}
