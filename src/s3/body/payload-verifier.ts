import { createHash, Hash } from 'node:crypto';
import { Transform, TransformCallback } from 'node:stream';
import { ChecksumAlgorithm, IncrementalChecksum, newChecksum } from './checksums';
import { S3Error } from '../s3-error';

/**
 * The last stage of every request body: counts, hashes and checks the decoded bytes while they
 * stream, and only ends (instead of erroring) when every declared digest matched. Nothing is
 * buffered.
 */
export interface PayloadChecks {
  /** Exact decoded length when the client declared it. */
  expectedLength?: number;
  /** Hard cap, enforced while streaming (bodies of unknown length included). */
  maxLength: number;
  /** A hex x-amz-content-sha256 that was signed. */
  sha256Hex?: string;
  /** Content-MD5, base64. */
  md5Base64?: string;
  /** An x-amz-checksum-* value, from a header or (read at the end) from the aws-chunked trailer. */
  checksum?: { algorithm: ChecksumAlgorithm; expected: () => string | undefined };
}

export class PayloadVerifier extends Transform {
  private length = 0;
  private readonly sha256: Hash | undefined;
  private readonly md5: Hash | undefined;
  private readonly checksum: IncrementalChecksum | undefined;

  constructor(
    private readonly checks: PayloadChecks,
    /** Called when the consumer first asks for data (the listener then sends 100 Continue). */
    private onFirstRead?: () => void,
  ) {
    super();
    this.sha256 = checks.sha256Hex ? createHash('sha256') : undefined;
    this.md5 = checks.md5Base64 ? createHash('md5') : undefined;
    this.checksum = checks.checksum ? newChecksum(checks.checksum.algorithm) : undefined;
  }

  /** The checksum the body had (for echoing `x-amz-checksum-*`), once the stream ended. */
  computedChecksum: string | undefined;

  override _read(size: number): void {
    const first = this.onFirstRead;
    this.onFirstRead = undefined;
    first?.();
    super._read(size);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.length += chunk.length;
    if (this.length > this.checks.maxLength) {
      callback(
        new S3Error(
          'EntityTooLarge',
          `your proposed upload exceeds the maximum allowed size (${this.checks.maxLength} bytes)`,
        ),
      );
      return;
    }
    if (this.checks.expectedLength !== undefined && this.length > this.checks.expectedLength) {
      callback(new S3Error('InvalidRequest', 'the body is longer than its declared length'));
      return;
    }
    this.sha256?.update(chunk);
    this.md5?.update(chunk);
    this.checksum?.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    try {
      this.verify();
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  private verify(): void {
    const { expectedLength, sha256Hex, md5Base64, checksum } = this.checks;
    if (expectedLength !== undefined && this.length !== expectedLength) {
      throw new S3Error(
        'IncompleteBody',
        `you did not provide the number of bytes declared (${expectedLength}); got ${this.length}`,
      );
    }
    if (this.sha256 && sha256Hex) {
      const computed = this.sha256.digest('hex');
      if (computed !== sha256Hex.toLowerCase()) {
        throw new S3Error(
          'XAmzContentSHA256Mismatch',
          'the provided x-amz-content-sha256 header does not match what was computed',
          { ClientComputedContentSHA256: sha256Hex, S3ComputedContentSHA256: computed },
        );
      }
    }
    if (this.md5 && md5Base64) {
      const computed = this.md5.digest('base64');
      if (computed !== md5Base64) {
        throw new S3Error(
          'BadDigest',
          'the Content-MD5 you specified did not match what we received',
          {
            ExpectedDigest: md5Base64,
            CalculatedDigest: computed,
          },
        );
      }
    }
    if (this.checksum && checksum) {
      const computed = this.checksum.digestBase64();
      const expected = checksum.expected();
      if (expected === undefined) {
        throw new S3Error(
          'InvalidRequest',
          `the declared trailer x-amz-checksum-${checksum.algorithm} was not sent`,
        );
      }
      if (computed !== expected) {
        throw new S3Error(
          'BadDigest',
          `the ${checksum.algorithm.toUpperCase()} you specified did not match the calculated checksum`,
        );
      }
      this.computedChecksum = computed;
    }
  }
}
