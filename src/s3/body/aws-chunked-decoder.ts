import { createHash, Hash } from 'node:crypto';
import { Transform, TransformCallback } from 'node:stream';
import { S3Error } from '../s3-error';
import { chunkSignature, SigV4Verified, signaturesEqual, trailerSignature } from '../auth/sigv4';

/**
 * Decodes an `aws-chunked` request body:
 *
 *   <hex size>[;chunk-signature=<sig>]\r\n<data>\r\n … 0[;chunk-signature=<sig>]\r\n
 *   [<trailer name>:<value>\r\n …][x-amz-trailer-signature:<sig>\r\n]\r\n
 *
 * Data passes through as it arrives (nothing is buffered but one header line), so a hostile
 * body cannot exhaust memory: header lines are capped, chunk sizes are capped, and the total may
 * not exceed x-amz-decoded-content-length. In the signed modes each chunk's signature chains
 * from the previous one (the first from the request's seed signature) and is verified when the
 * chunk ends; the stream only ends after the final chunk and the trailer verified, so a consumer
 * that commits on 'end' never commits a tampered body.
 */
export interface AwsChunkedOptions {
  /** Set for STREAMING-AWS4-HMAC-SHA256-PAYLOAD(-TRAILER): verify chunk signatures. */
  signing?: SigV4Verified;
  /** The body ends with trailer lines (the -TRAILER modes). */
  trailer: boolean;
  /** x-amz-decoded-content-length. */
  decodedLength: number;
  maxChunkBytes: number;
}

/** Longest chunk header or trailer line accepted (real ones are under 100 bytes). */
export const MAX_CHUNK_LINE_BYTES = 4096;
const MAX_TRAILER_LINES = 16;
const TRAILER_SIGNATURE = 'x-amz-trailer-signature';

type State = 'header' | 'data' | 'data-crlf' | 'trailer' | 'done';

export class AwsChunkedDecoder extends Transform {
  /** Trailer headers by lower-case name, available once the stream has ended. */
  readonly trailers = new Map<string, string>();

  private state: State = 'header';
  private lineParts: Buffer[] = [];
  private lineLength = 0;
  private remaining = 0;
  private crlfSeen = 0;
  private decoded = 0;
  private previousSignature: string;
  private chunkHash: Hash | undefined;
  private expectedChunkSignature = '';
  private trailerLines: string[] = [];
  private trailingBytes = 0;

  constructor(private readonly options: AwsChunkedOptions) {
    super();
    this.previousSignature = options.signing?.seedSignature ?? '';
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.consume(chunk);
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    if (this.state !== 'done') {
      callback(new S3Error('IncompleteBody', 'the aws-chunked body ended before its final chunk'));
      return;
    }
    callback();
  }

  private consume(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      switch (this.state) {
        case 'header':
        case 'trailer': {
          const end = this.readLine(chunk, offset);
          if (end.line === undefined) return;
          offset = end.next;
          if (this.state === 'header') this.onHeaderLine(end.line);
          else this.onTrailerLine(end.line);
          break;
        }
        case 'data': {
          const take = Math.min(this.remaining, chunk.length - offset);
          const slice = chunk.subarray(offset, offset + take);
          this.chunkHash?.update(slice);
          this.push(slice);
          this.remaining -= take;
          offset += take;
          if (this.remaining === 0) this.state = 'data-crlf';
          break;
        }
        case 'data-crlf': {
          const expected = this.crlfSeen === 0 ? 0x0d : 0x0a;
          if (chunk[offset] !== expected) throw malformed('chunk data is not followed by CRLF');
          offset++;
          if (++this.crlfSeen === 2) this.onChunkEnd();
          break;
        }
        case 'done': {
          // Tolerate a stray CRLF after the terminating line; anything else is not aws-chunked.
          const byte = chunk[offset++];
          if ((byte !== 0x0d && byte !== 0x0a) || ++this.trailingBytes > 4) {
            throw malformed('data after the final chunk');
          }
          break;
        }
      }
    }
  }

  /** Collects one CRLF-terminated line across input chunks, with a hard length cap. */
  private readLine(chunk: Buffer, offset: number): { line?: string; next: number } {
    const newline = chunk.indexOf(0x0a, offset);
    const end = newline < 0 ? chunk.length : newline;
    this.lineLength += end - offset;
    if (this.lineLength > MAX_CHUNK_LINE_BYTES) {
      throw malformed(`a chunk header or trailer line exceeds ${MAX_CHUNK_LINE_BYTES} bytes`);
    }
    this.lineParts.push(chunk.subarray(offset, end));
    if (newline < 0) return { next: chunk.length };
    const raw = Buffer.concat(this.lineParts).toString('latin1');
    this.lineParts = [];
    this.lineLength = 0;
    if (!raw.endsWith('\r')) throw malformed('a chunk line is not terminated by CRLF');
    return { line: raw.slice(0, -1), next: newline + 1 };
  }

  private onHeaderLine(line: string): void {
    const match = this.options.signing
      ? /^([0-9a-fA-F]{1,16});chunk-signature=([0-9a-f]{64})$/.exec(line)
      : /^([0-9a-fA-F]{1,16})(?:;.*)?$/.exec(line);
    if (!match) {
      throw malformed(
        this.options.signing
          ? 'a chunk header must be <hex size>;chunk-signature=<64 hex digits>'
          : 'a chunk header must be a hex size',
      );
    }
    const size = parseInt(match[1], 16);
    if (size > this.options.maxChunkBytes) {
      throw malformed(
        `a chunk of ${size} bytes exceeds the limit of ${this.options.maxChunkBytes}`,
      );
    }
    if (this.decoded + size > this.options.decodedLength) {
      throw new S3Error(
        'InvalidRequest',
        `the aws-chunked body carries more than x-amz-decoded-content-length (${this.options.decodedLength}) bytes`,
      );
    }
    this.expectedChunkSignature = match[2] ?? '';
    if (this.options.signing) this.chunkHash = createHash('sha256');
    this.decoded += size;
    if (size === 0) {
      this.verifyChunkSignature();
      if (this.decoded !== this.options.decodedLength) {
        throw new S3Error(
          'IncompleteBody',
          `the aws-chunked body carried ${this.decoded} bytes, x-amz-decoded-content-length says ${this.options.decodedLength}`,
        );
      }
      this.state = 'trailer';
      return;
    }
    this.remaining = size;
    this.crlfSeen = 0;
    this.state = 'data';
  }

  private onChunkEnd(): void {
    this.verifyChunkSignature();
    this.state = 'header';
  }

  private verifyChunkSignature(): void {
    const signing = this.options.signing;
    if (!signing || !this.chunkHash) return;
    const expected = chunkSignature(signing, this.previousSignature, this.chunkHash.digest('hex'));
    if (!signaturesEqual(expected, this.expectedChunkSignature)) {
      throw new S3Error(
        'SignatureDoesNotMatch',
        'a chunk signature of the aws-chunked body does not match (the body was altered or signed with another key)',
      );
    }
    this.previousSignature = expected;
    this.chunkHash = undefined;
  }

  private onTrailerLine(line: string): void {
    if (line === '') {
      this.finishTrailer();
      return;
    }
    if (!this.options.trailer) throw malformed('trailer lines in a body that declared none');
    if (this.trailerLines.length >= MAX_TRAILER_LINES) throw malformed('too many trailer lines');
    const colon = line.indexOf(':');
    if (colon <= 0) throw malformed('a trailer line must be <name>:<value>');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (this.trailers.has(TRAILER_SIGNATURE))
      throw malformed('trailer lines after x-amz-trailer-signature');
    this.trailers.set(name, value);
    if (name !== TRAILER_SIGNATURE) this.trailerLines.push(`${name}:${value}\n`);
  }

  private finishTrailer(): void {
    const signing = this.options.signing;
    if (signing && this.options.trailer) {
      const given = this.trailers.get(TRAILER_SIGNATURE);
      if (given === undefined) throw malformed('the signed trailer has no x-amz-trailer-signature');
      const expected = trailerSignature(
        signing,
        this.previousSignature,
        this.trailerLines.join(''),
      );
      if (!signaturesEqual(expected, given)) {
        throw new S3Error('SignatureDoesNotMatch', 'the trailer signature does not match');
      }
    }
    this.state = 'done';
  }
}

function malformed(why: string): S3Error {
  return new S3Error('InvalidRequest', `malformed aws-chunked body: ${why}`);
}
