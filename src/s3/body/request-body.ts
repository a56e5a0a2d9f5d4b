import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { AwsChunkedDecoder } from './aws-chunked-decoder';
import { ChecksumAlgorithm, checksumAlgorithmOfHeader } from './checksums';
import { singleHeader } from '../http-header';
import { PayloadChecks, PayloadVerifier } from './payload-verifier';
import { S3Error } from '../s3-error';
import { SigV4Verified } from '../auth/sigv4';
import {
  STREAMING_SIGNED,
  STREAMING_SIGNED_TRAILER,
  STREAMING_UNSIGNED_TRAILER,
  UNSIGNED_PAYLOAD,
} from '../auth/sigv4-parse';

export interface BodyLimits {
  /** Largest decoded body. */
  maxBytes: number;
  /** Largest single aws-chunked chunk. */
  maxChunkBytes: number;
  /**
   * Objects and parts must declare their length, as S3 requires (`411 MissingContentLength`):
   * storage budgets a write by it before the body is read.
   */
  requireLength?: boolean;
  /** With `requireLength`: a chunked body without a length is still taken, up to this many bytes. */
  maxUnsizedBytes?: number;
  /**
   * An `x-amz-checksum-*` header is the checksum of the object being made, not of this body
   * (CompleteMultipartUpload): the caller checks it, the body is not.
   */
  checksumHeaderIsObjects?: boolean;
}

export interface VerifiedBody {
  /** Decoded bytes; ends only when every check passed (see S3Backend's contract). */
  stream: Readable;
  /** Decoded length when declared. */
  size: number | undefined;
  /** The flexible checksum the client sent (header or trailer), to echo once the body ended. */
  checksum?: { algorithm: ChecksumAlgorithm; value: () => string | undefined };
}

/**
 * Wires the request body through the decoding and verification the payload mode asks for. The
 * request is piped, not handed to stream.pipeline: on a failed check the socket must stay open
 * long enough to answer with the S3 error (the reply then closes the connection).
 */
export function openVerifiedBody(
  req: IncomingMessage,
  auth: SigV4Verified,
  limits: BodyLimits,
  onFirstRead?: () => void,
): VerifiedBody {
  const headers = req.headers;
  const mode = auth.claims.payloadHash;
  const streaming =
    mode === STREAMING_SIGNED ||
    mode === STREAMING_SIGNED_TRAILER ||
    mode === STREAMING_UNSIGNED_TRAILER;
  const trailer = mode === STREAMING_SIGNED_TRAILER || mode === STREAMING_UNSIGNED_TRAILER;
  const size = streaming
    ? declaredLength(headers, 'x-amz-decoded-content-length', true)
    : plainLength(headers, (limits.requireLength ?? false) && limits.maxUnsizedBytes === undefined);
  if (size !== undefined && size > limits.maxBytes) {
    throw new S3Error(
      'EntityTooLarge',
      `your proposed upload exceeds the maximum allowed size (${limits.maxBytes} bytes)`,
      { ProposedSize: String(size), MaxSizeAllowed: String(limits.maxBytes) },
    );
  }

  const decoder = streaming
    ? new AwsChunkedDecoder({
        signing: mode === STREAMING_UNSIGNED_TRAILER ? undefined : auth,
        trailer,
        decodedLength: size ?? 0,
        maxChunkBytes: limits.maxChunkBytes,
      })
    : undefined;
  const checksum = trailer
    ? trailerChecksum(headers, decoder)
    : limits.checksumHeaderIsObjects
      ? undefined
      : headerChecksum(headers);
  const checks: PayloadChecks = {
    expectedLength: size,
    maxLength:
      size === undefined && limits.maxUnsizedBytes !== undefined
        ? Math.min(limits.maxBytes, limits.maxUnsizedBytes)
        : limits.maxBytes,
    sha256Hex: mode !== UNSIGNED_PAYLOAD && !streaming ? mode : undefined,
    md5Base64: contentMd5(headers),
    checksum,
  };
  const verifier = new PayloadVerifier(checks, onFirstRead);

  const first = decoder ?? verifier;
  if (decoder) {
    decoder.on('error', (error) => verifier.destroy(error));
    decoder.pipe(verifier);
  }
  req.pipe(first);
  const onClose = () => {
    if (!req.complete) {
      first.destroy(new S3Error('IncompleteBody', 'the client closed the connection mid-body'));
    }
  };
  req.once('close', onClose);
  verifier.once('close', () => req.off('close', onClose));
  return {
    stream: verifier,
    size,
    checksum: checksum && {
      algorithm: checksum.algorithm,
      value: () => verifier.computedChecksum,
    },
  };
}

/** Reads a small body (request XML) into memory, refusing more than `maxBytes`. */
export async function readSmallBody(body: Readable, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      body.destroy();
      throw new S3Error(
        'MaxMessageLengthExceeded',
        `the request body exceeds the ${maxBytes}-byte limit of this operation`,
      );
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

/**
 * The length of a body that is not aws-chunked: Content-Length, or 0 when the request has no
 * body at all (neither Content-Length nor Transfer-Encoding, as HTTP defines). A chunked
 * Transfer-Encoding has no length: undefined, or 411 when `required`.
 */
function plainLength(headers: IncomingHttpHeaders, required: boolean): number | undefined {
  const declared = declaredLength(headers, 'content-length', false);
  if (declared !== undefined) return declared;
  if (headers['transfer-encoding'] === undefined) return 0;
  if (!required) return undefined;
  throw new S3Error('MissingContentLength', 'you must provide the Content-Length HTTP header');
}

function declaredLength(
  headers: IncomingHttpHeaders,
  name: string,
  required: boolean,
): number | undefined {
  const value = singleHeader(headers, name);
  if (value === undefined) {
    if (required) throw new S3Error('MissingContentLength', `you must provide the ${name} header`);
    return undefined;
  }
  if (!/^\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new S3Error('InvalidArgument', `${name} must be a non-negative integer`);
  }
  return Number(value);
}

function contentMd5(headers: IncomingHttpHeaders): string | undefined {
  const value = singleHeader(headers, 'content-md5');
  if (value === undefined) return undefined;
  if (!/^[A-Za-z0-9+/]{22}==$/.test(value)) {
    throw new S3Error('InvalidDigest', 'the Content-MD5 you specified is not valid');
  }
  return value;
}

function headerChecksum(headers: IncomingHttpHeaders): PayloadChecks['checksum'] {
  for (const [name, value] of Object.entries(headers)) {
    const algorithm = checksumAlgorithmOfHeader(name);
    if (!algorithm || typeof value !== 'string') continue;
    const trimmed = value.trim();
    return { algorithm, expected: () => trimmed };
  }
  return undefined;
}

function trailerChecksum(
  headers: IncomingHttpHeaders,
  decoder: AwsChunkedDecoder | undefined,
): PayloadChecks['checksum'] {
  const declared = singleHeader(headers, 'x-amz-trailer');
  if (declared === undefined) return undefined;
  const name = declared.trim().toLowerCase();
  const algorithm = checksumAlgorithmOfHeader(name);
  if (!algorithm) {
    throw new S3Error(
      'InvalidRequest',
      `unsupported x-amz-trailer ${name}; use x-amz-checksum-crc32, -crc32c, -crc64nvme, -sha1 or -sha256`,
    );
  }
  return { algorithm, expected: () => decoder?.trailers.get(name) };
}
