import { Injectable } from '@nestjs/common';
import { S3Config } from '../../config/s3.config';
import { openVerifiedBody, readSmallBody, VerifiedBody } from './request-body';
import { S3RequestContext } from '../s3-context';
import { S3Error } from '../s3-error';

/** Opens request bodies with the configured limits, and keeps the backend to the body contract. */
@Injectable()
export class S3BodyReader {
  constructor(private readonly config: S3Config) {}

  /**
   * An object or part body. Its length must be declared, except for a PutObject (`unsized`) in
   * chunked Transfer-Encoding, which is taken up to `max_unsized_body_bytes`.
   */
  open(ctx: S3RequestContext, options: { unsized?: boolean } = {}): VerifiedBody {
    const unsized = options.unsized === true && this.config.max_unsized_body_bytes > 0;
    return openVerifiedBody(
      ctx.raw,
      ctx.auth,
      {
        maxBytes: this.config.max_object_bytes,
        maxChunkBytes: this.config.max_chunk_bytes,
        requireLength: true,
        ...(unsized ? { maxUnsizedBytes: this.config.max_unsized_body_bytes } : {}),
      },
      ctx.sendContinue,
    );
  }

  /** A small verified body (request XML) in memory. */
  async readSmall(
    ctx: S3RequestContext,
    maxBytes: number,
    options: { checksumHeaderIsObjects?: boolean } = {},
  ): Promise<Buffer> {
    try {
      const body = openVerifiedBody(
        ctx.raw,
        ctx.auth,
        { maxBytes, maxChunkBytes: this.config.max_chunk_bytes, ...options },
        ctx.sendContinue,
      );
      return await readSmallBody(body.stream, maxBytes);
    } catch (error) {
      // S3 names an oversized request document differently from an oversized object.
      if (error instanceof S3Error && error.code === 'EntityTooLarge') {
        throw new S3Error(
          'MaxMessageLengthExceeded',
          `the request body exceeds the ${maxBytes}-byte limit of this operation`,
        );
      }
      throw error;
    }
  }

  /**
   * Runs a backend write that consumes `body`. When the body failed a check, that failure is the
   * answer whatever the backend made of it; and a backend that reports success without reading
   * the body to its verified end is refused, since unverified bytes might have been kept.
   */
  async consume<T>(body: VerifiedBody, write: () => Promise<T>): Promise<T> {
    let bodyError: Error | undefined;
    body.stream.once('error', (error) => (bodyError = error));
    let result: T;
    try {
      result = await write();
    } catch (error) {
      if (bodyError instanceof S3Error) throw bodyError;
      throw error;
    }
    if (bodyError !== undefined) throw bodyError;
    if (!body.stream.readableEnded) {
      body.stream.destroy();
      throw new Error('the storage backend reported success without reading the whole body');
    }
    return result;
  }
}
