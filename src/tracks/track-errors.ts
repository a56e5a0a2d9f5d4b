/**
 * Typed failures of the track store, so routes map them to statuses without parsing messages:
 * a lying upload (size or commitment mismatch) is the client's fault, an interrupted upload
 * needs no answer, an IntegrityError means storage handed back bytes that fail their
 * commitment (502, and the track is logged). Messages never include track bytes.
 */
export abstract class TrackStoreError extends Error {
  abstract readonly code: string;

  constructor(
    message: string,
    /** Lowercase hex commitment of the track concerned. */
    readonly track: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class TrackNotFoundError extends TrackStoreError {
  readonly code = 'track_not_found';

  constructor(track: string) {
    super(`track ${track} is not in the store`, track);
  }
}

export class TrackSizeMismatchError extends TrackStoreError {
  readonly code = 'size_mismatch';

  constructor(
    track: string,
    readonly expected: number,
    /** Bytes received; when the body was too long, counting stopped at the first excess piece. */
    readonly received: number,
  ) {
    super(
      received > expected
        ? `body is longer than the declared ${expected} bytes`
        : `body has ${received} bytes, ${expected} declared`,
      track,
    );
  }
}

export class TrackCommitmentMismatchError extends TrackStoreError {
  readonly code = 'commitment_mismatch';

  constructor(
    track: string,
    readonly actual: string,
  ) {
    super(`body hashes to ${actual}, not the declared commitment ${track}`, track);
  }
}

export class TrackUploadInterruptedError extends TrackStoreError {
  readonly code = 'upload_interrupted';

  constructor(
    track: string,
    readonly received: number,
    cause: unknown,
  ) {
    super(`upload stream failed after ${received} bytes: ${describe(cause)}`, track, { cause });
  }
}

/** Stored bytes or their chunk list fail the commitment: storage is corrupt or was tampered. */
export class IntegrityError extends TrackStoreError {
  readonly code = 'integrity_failure';

  constructor(
    track: string,
    readonly detail: string,
  ) {
    super(`track ${track} failed verification: ${detail}`, track);
  }
}

/**
 * The remote store cannot be reached (network error, timeout, 5xx): not the bytes' fault. Routes
 * answer 503 (try again), never 502, and /healthz names the store (docs/tracks.md).
 */
export class TrackStoreUnavailableError extends TrackStoreError {
  readonly code = 'store_unavailable';

  constructor(track: string, cause: unknown) {
    super(`track store unreachable while reading ${track}: ${describe(cause)}`, track, { cause });
  }
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
