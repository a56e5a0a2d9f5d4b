import { createHash, Hash } from 'node:crypto';
import { Transform } from 'node:stream';

/**
 * S3's ETag of a body as it streams past: the hex MD5 of a single-part object, or, given the
 * sizes of the parts it is made of, `<hex MD5 of the parts' binary MD5s>-<parts>` (what S3 answers
 * for a completed multipart upload, and what clients such as rclone compare against). The bytes
 * pass through unchanged; `etag()` is known once the stream ended.
 */
export class S3EtagTap {
  readonly stream: Transform;
  private readonly partMd5s: Buffer[] = [];
  private hash: Hash = createHash('md5');
  private partIndex = 0;
  private leftInPart: number;
  private result: string | undefined;

  constructor(private readonly partSizes?: number[]) {
    this.leftInPart = partSizes?.[0] ?? Infinity;
    this.stream = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        this.update(chunk);
        done(null, chunk);
      },
      flush: (done) => {
        this.result = this.finish();
        done();
      },
    });
  }

  /** The ETag, unquoted; undefined until the body ended. */
  etag(): string | undefined {
    return this.result;
  }

  private update(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      const take = Math.min(chunk.length - offset, this.leftInPart);
      this.hash.update(chunk.subarray(offset, offset + take));
      offset += take;
      this.leftInPart -= take;
      if (this.leftInPart === 0) this.nextPart();
    }
  }

  private nextPart(): void {
    this.partMd5s.push(this.hash.digest());
    this.hash = createHash('md5');
    this.partIndex++;
    this.leftInPart = this.partSizes?.[this.partIndex] ?? Infinity;
  }

  private finish(): string {
    if (!this.partSizes) return this.hash.digest('hex');
    // Zero-length parts (an empty last part) end without a byte passing.
    while (this.partMd5s.length < this.partSizes.length) this.nextPart();
    const etag = createHash('md5').update(Buffer.concat(this.partMd5s)).digest('hex');
    return `${etag}-${this.partSizes.length}`;
  }
}
