import { Inject, Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { ApiError } from '../http/api-error';
import { contentRange, parseSingleRange } from '../tracks/byte-range';
import { commitmentFromHex, isCommitmentHex } from '../tracks/commitment';
import { PeerTrackStore } from '../tracks/peers/peer-track-store';
import {
  IntegrityError,
  TrackNotFoundError,
  TrackStoreUnavailableError,
} from '../tracks/track-errors';
import { TrackStore } from '../tracks/track-store';
import { TRACK_STORE_BACKEND } from '../tracks/tracks.module';
import { primeStream } from './primed-stream';
import { objectErrors } from './object-errors';
import { decimalText } from '../http/decimal-text';

/** What `GET|HEAD /tracks/{hex}[/chunks]` answers: status, headers and the body (none for HEAD). */
export interface RawTrackAnswer {
  status: number;
  headers: Record<string, string>;
  body?: Readable | Buffer;
}

export interface RawTrackRequest {
  hex: string;
  chunks: boolean;
  head: boolean;
  range?: string;
  /** Sent by a reader to its peer (x-tape-peer-hop): answer only from what is held here. */
  fromPeer: boolean;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * A track's raw bytes by commitment, and its chunk-hash list: what a reader with peers
 * (`storage.tracks.peers`, docs/peers.md) fetches from another gateway. Bytes are read through
 * the store's verified reads, so a gateway never passes on bytes that fail their commitment;
 * the asker verifies everything again against the chain. A reader that itself reads from peers
 * answers a peer's request only from its own cache, so two readers that name each other never
 * ask each other in a loop.
 */
@Injectable()
export class RawTrackService {
  constructor(
    private readonly store: TrackStore,
    @Inject(TRACK_STORE_BACKEND) private readonly backend: TrackStore,
  ) {}

  async answer(request: RawTrackRequest): Promise<RawTrackAnswer> {
    if (!isCommitmentHex(request.hex)) {
      throw new ApiError(400, 'bad_request', 'the commitment must be 64 lowercase hex digits');
    }
    const commitment = commitmentFromHex(request.hex);
    const etag = `"${request.hex}"`;
    try {
      if (
        request.fromPeer &&
        this.backend instanceof PeerTrackStore &&
        !this.backend.holdsLocally(commitment)
      ) {
        throw notHeld();
      }
      const size = await this.store.storedSize(commitment);
      if (size === undefined) throw notHeld();
      // Checks the stored size too: the commitment binds it.
      const hashes = await this.store.readChunkHashes(commitment, size);
      const common = {
        etag,
        'cache-control': IMMUTABLE,
        'content-type': 'application/octet-stream',
        'x-content-type-options': 'nosniff',
        'content-security-policy': 'sandbox',
      };
      if (request.chunks) {
        return {
          status: 200,
          headers: { ...common, 'content-length': String(hashes.length) },
          ...(!request.head && { body: hashes }),
        };
      }
      const range = parseSingleRange(request.range, size);
      if (range.kind === 'unsatisfiable') throw objectErrors.unsatisfiable(size);
      const [start, end] = range.kind === 'single' ? [range.start, range.end] : [0, size - 1];
      const headers: Record<string, string> = {
        ...common,
        'accept-ranges': 'bytes',
        'content-length': decimalText(size === 0 ? 0 : end - start + 1),
        ...(range.kind === 'single' && { 'content-range': contentRange(range, size) }),
      };
      const status = range.kind === 'single' ? 206 : 200;
      if (request.head || size === 0)
        return { status, headers, ...(!request.head && { body: Buffer.alloc(0) }) };
      // The first verified bytes before the status: a bad first chunk is a 502, not a cut 200.
      const body = await primeStream(
        this.store.openRange(commitment, size, start, end),
        () => undefined,
      );
      return { status, headers, body };
    } catch (err) {
      throw refusal(err);
    }
  }
}

function notHeld(): ApiError {
  return new ApiError(404, 'not_found', 'this gateway holds no such track');
}

function refusal(err: unknown): unknown {
  if (err instanceof ApiError) return err;
  if (err instanceof IntegrityError) return objectErrors.integrityFailure();
  if (err instanceof TrackNotFoundError) return notHeld();
  if (err instanceof TrackStoreUnavailableError) return objectErrors.storeUnavailable();
  return err;
}
