import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

/**
 * The bytes of shared multipart uploads' parts, one bucket object each:
 * `<objectPrefix><uploadId>/<n>-<random>` in the track bucket. The bucket is not trusted: what
 * is read back is counted against the size recorded for the part (and hashed again downstream).
 */
export class PartObjects {
  private readonly logger = new Logger('s3-multipart');

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    /** `<storage.tracks.s3.prefix>multipart/`. */
    private readonly objectPrefix: string,
  ) {}

  /** A new object's key for part `partNumber` (a replaced part's object is another one). */
  newKey(uploadId: string, partNumber: number): string {
    return `${this.objectPrefix}${uploadId}/${partNumber}-${randomBytes(6).toString('hex')}`;
  }

  async put(object: string, body: Readable, length: number): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: object,
        Body: body,
        ContentLength: length,
        ContentType: 'application/octet-stream',
      }),
    );
  }

  /** The parts' objects one after another; a part of another length than recorded fails. */
  concatenate(parts: { object: string; partNumber: number; size: number }[]): Readable {
    const { client, bucket } = this;
    return Readable.from(
      (async function* () {
        for (const part of parts) {
          const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: part.object }));
          let received = 0;
          for await (const chunk of out.Body as Readable) {
            received += (chunk as Buffer).length;
            yield chunk as Buffer;
          }
          if (received !== part.size) {
            throw new Error(
              `part ${part.partNumber} has ${received} bytes in the store, not ${part.size}`,
            );
          }
        }
      })(),
    );
  }

  /** Deletes one part's object; a failure is logged, not thrown (an orphan costs only space). */
  async delete(object: string): Promise<void> {
    await this.client
      .send(new DeleteObjectCommand({ Bucket: this.bucket, Key: object }))
      .catch((err: Error) =>
        this.logger.warn({ msg: 'part object not deleted', object, error: err.message }),
      );
  }
}
