import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { checksumAlgorithmOfHeader } from '../body/checksums';
import { S3Config } from '../../config/s3.config';
import { parseMaxKeys } from './list-objects';
import { readUserMetadata } from './object-headers';
import { readStoredHeaders } from '../object-metadata';
import { multipartChecksumHeaders, readMultipartChecksum } from './multipart-checksum';
import { singleHeader } from '../http-header';
import { evaluateConditions } from './object-headers';
import {
  ExpectedChecksum,
  S3Backend,
  S3ByteRange,
  S3CompletedPart,
  S3PartInfo,
} from '../s3-backend';
import { copySourceBucket, parseCopySource } from './s3-object-handlers';
import { S3BodyReader } from '../body/s3-body-reader';
import { publishableKey } from '../s3-address';
import { bucketOf, keyOf, S3RequestContext, S3Response, xmlResponse } from '../s3-context';
import { S3Error } from '../s3-error';
import {
  completeMultipartXml,
  copyPartXml,
  initiateMultipartXml,
  listPartsXml,
  quoteEtag,
} from '../xml/s3-xml-responses';
import {
  MAX_PARTS,
  MAX_REQUEST_XML_BYTES,
  parseCompleteMultipartUpload,
} from '../xml/s3-xml-requests';
import { awsUriEncode } from '../uri-encoding';
import { parseWriteCondition } from './write-conditions';

/**
 * Multipart uploads. The part list of CompleteMultipartUpload is checked here against the stored
 * parts (order, ETags, minimum size) so every backend enforces S3's rules the same way; the
 * backend runs the check on the part list it assembles from (`S3PartListCheck`).
 */
@Injectable()
export class S3MultipartHandlers {
  constructor(
    private readonly backend: S3Backend,
    private readonly bodies: S3BodyReader,
    private readonly config: S3Config,
  ) {}

  async create(ctx: S3RequestContext): Promise<S3Response> {
    const bucket = bucketOf(ctx);
    const key = publishableKey(keyOf(ctx));
    const checksum = readMultipartChecksum(ctx.raw.headers);
    const { uploadId } = await this.backend.createMultipartUpload(bucket, {
      key,
      contentType: ctx.contentType,
      metadata: readUserMetadata(ctx.raw.headers),
      headers: readStoredHeaders(ctx.raw.headers),
      checksum,
    });
    return xmlResponse(
      initiateMultipartXml(bucket.name, key, uploadId),
      200,
      multipartChecksumHeaders(checksum),
    );
  }

  async uploadPart(ctx: S3RequestContext): Promise<S3Response> {
    const bucket = bucketOf(ctx);
    const partNumber = parsePartNumber(ctx.address.query.get('partNumber'));
    const uploadId = requireUploadId(ctx);
    const body = this.bodies.open(ctx);
    const { etag, checksum: kept } = await this.bodies.consume(body, () =>
      this.backend.uploadPart(bucket, {
        key: keyOf(ctx),
        uploadId,
        partNumber,
        size: body.size,
        body: body.stream,
      }),
    );
    const headers: Record<string, string> = { etag: quoteEtag(etag) };
    const checksum = body.checksum?.value();
    if (body.checksum && checksum) headers[`x-amz-checksum-${body.checksum.algorithm}`] = checksum;
    // The part's checksum in the upload's algorithm, computed as it arrived (sent or not).
    if (kept) headers[`x-amz-checksum-${kept.algorithm}`] = kept.value;
    return { status: 200, headers };
  }

  /**
   * UploadPartCopy: a part made of an object of the same bucket (or the byte range
   * `x-amz-copy-source-range` of it), read from the track store and stored as any part is.
   */
  async uploadPartCopy(ctx: S3RequestContext): Promise<S3Response> {
    const bucket = bucketOf(ctx);
    const partNumber = parsePartNumber(ctx.address.query.get('partNumber'));
    const uploadId = requireUploadId(ctx);
    const source = parseCopySource(singleHeader(ctx.raw.headers, 'x-amz-copy-source'));
    const sourceBucket = await copySourceBucket(this.backend, bucket, source.bucket);
    const head = await this.backend.headObject(sourceBucket, source.key);
    evaluateConditions(ctx.raw.headers, head, 'x-amz-copy-source-');
    const range = parseCopySourceRange(
      singleHeader(ctx.raw.headers, 'x-amz-copy-source-range'),
      head.size,
    );
    const { body } = await this.backend.getObject(sourceBucket, source.key, range);
    const size = range ? range.end - range.start + 1 : head.size;
    const { etag } = await this.backend.uploadPart(bucket, {
      key: keyOf(ctx),
      uploadId,
      partNumber,
      size,
      body,
    });
    return xmlResponse(copyPartXml(etag, new Date()));
  }

  async complete(ctx: S3RequestContext): Promise<S3Response> {
    const bucket = bucketOf(ctx);
    const key = publishableKey(keyOf(ctx));
    const uploadId = requireUploadId(ctx);
    const condition = parseWriteCondition(ctx.raw.headers);
    // x-amz-checksum-<algorithm> here is the object's checksum, checked when it is assembled.
    const expected = objectChecksumHeader(ctx.raw.headers);
    const listed = parseCompleteMultipartUpload(
      await this.bodies.readSmall(ctx, MAX_REQUEST_XML_BYTES, { checksumHeaderIsObjects: true }),
    );
    // The backend checks the list on the part list it assembles from, under the completion's
    // lock (a part uploaded again after a check made here would be assembled unchecked), and
    // answers a retry of a completed upload itself.
    const result = await this.backend.completeMultipartUpload(
      bucket,
      key,
      uploadId,
      (stored) => this.checkPartList(listed, stored),
      condition,
      expected,
    );
    const location = `${ctx.origin}/${bucket.name}/${awsUriEncode(key, true)}`;
    return xmlResponse(
      completeMultipartXml(location, bucket.name, key, result.etag, result.checksum),
    );
  }

  async abort(ctx: S3RequestContext): Promise<S3Response> {
    await this.backend.abortMultipartUpload(bucketOf(ctx), keyOf(ctx), requireUploadId(ctx));
    return { status: 204 };
  }

  async listParts(ctx: S3RequestContext): Promise<S3Response> {
    const bucket = bucketOf(ctx);
    const key = keyOf(ctx);
    const uploadId = requireUploadId(ctx);
    const q = ctx.address.query;
    const maxParts = parseMaxKeys(q.get('max-parts'), 'max-parts');
    const markerText = q.get('part-number-marker') ?? '0';
    if (!/^\d{1,5}$/.test(markerText)) {
      throw new S3Error('InvalidArgument', 'part-number-marker must be an integer', {
        ArgumentName: 'part-number-marker',
      });
    }
    const marker = Number(markerText);
    const all = (await this.backend.listParts(bucket, key, uploadId))
      .filter((p) => p.partNumber > marker)
      .sort((a, b) => a.partNumber - b.partNumber);
    const parts = all.slice(0, maxParts);
    const isTruncated = all.length > parts.length;
    return xmlResponse(
      listPartsXml({
        bucket: bucket.name,
        key,
        uploadId,
        partNumberMarker: marker,
        nextPartNumberMarker: isTruncated ? parts[parts.length - 1]?.partNumber : undefined,
        maxParts,
        isTruncated,
        parts,
      }),
    );
  }

  /** The parts to assemble, checked; a part number listed twice is the part as stored. */
  private checkPartList(listed: S3CompletedPart[], storedParts: S3PartInfo[]): S3CompletedPart[] {
    const stored = new Map(storedParts.map((p) => [p.partNumber, p]));
    const parts = onePerNumber(listed, stored);
    const sizes = parts.map((part) => {
      const found = stored.get(part.partNumber);
      // A checksum the request gives for a part must be the one the part arrived with.
      const checksumDiffers =
        part.checksum !== undefined &&
        found?.checksum !== undefined &&
        part.checksum.value !== found.checksum;
      if (!found || found.etag !== part.etag || checksumDiffers) {
        throw new S3Error(
          'InvalidPart',
          'one or more of the specified parts could not be found: the part may not have been uploaded, or its ETag did not match',
          { PartNumber: String(part.partNumber), ETag: quoteEtag(part.etag) },
        );
      }
      return found.size;
    });
    sizes.forEach((size, index) => {
      if (index < sizes.length - 1 && size < this.config.min_part_bytes) {
        throw new S3Error(
          'EntityTooSmall',
          'your proposed upload is smaller than the minimum allowed object size',
          {
            PartNumber: String(parts[index].partNumber),
            ProposedSize: String(size),
            MinSizeAllowed: String(this.config.min_part_bytes),
          },
        );
      }
    });
    return parts;
  }
}

/**
 * The part list in ascending order, one entry per part number. A number listed more than once
 * (a part uploaded twice, each upload's ETag listed, as when a retried UploadPart finished before
 * the first one) names the part as stored — the upload that finished last — when one of its
 * entries carries that part's ETag (S3's and Ceph's rule). A decreasing number is
 * InvalidPartOrder.
 */
export function onePerNumber(
  listed: S3CompletedPart[],
  stored: Map<number, S3PartInfo>,
): S3CompletedPart[] {
  const parts: S3CompletedPart[] = [];
  for (const part of listed) {
    const previous = parts[parts.length - 1];
    if (previous && part.partNumber < previous.partNumber) {
      throw new S3Error(
        'InvalidPartOrder',
        'the list of parts was not in ascending order; parts must be ordered by part number',
      );
    }
    if (previous?.partNumber !== part.partNumber) parts.push(part);
    else if (stored.get(part.partNumber)?.etag === part.etag) parts[parts.length - 1] = part;
  }
  return parts;
}

/** CompleteMultipartUpload's `x-amz-checksum-<algorithm>`: the checksum the object must have. */
function objectChecksumHeader(headers: IncomingHttpHeaders): ExpectedChecksum | undefined {
  for (const [name, value] of Object.entries(headers)) {
    const algorithm = checksumAlgorithmOfHeader(name);
    if (algorithm && typeof value === 'string') return { algorithm, value: value.trim() };
  }
  return undefined;
}

function parsePartNumber(raw: string | undefined): number {
  if (raw === undefined || !/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_PARTS) {
    throw new S3Error(
      'InvalidArgument',
      `part number must be an integer between 1 and ${MAX_PARTS}, inclusive`,
      {
        ArgumentName: 'partNumber',
        ArgumentValue: raw ?? '',
      },
    );
  }
  return Number(raw);
}

/**
 * `x-amz-copy-source-range: bytes=first-last` (both given, inclusive): 400 InvalidArgument when
 * malformed, InvalidRange when it does not lie within the source. Undefined: the whole object.
 */
export function parseCopySourceRange(
  header: string | undefined,
  size: number,
): S3ByteRange | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d{1,15})-(\d{1,15})$/.exec(header.trim());
  if (!match || Number(match[1]) > Number(match[2])) {
    throw new S3Error(
      'InvalidArgument',
      'the x-amz-copy-source-range value must be of the form bytes=first-last',
      { ArgumentName: 'x-amz-copy-source-range', ArgumentValue: header },
    );
  }
  const start = Number(match[1]);
  const end = Number(match[2]);
  if (end >= size) {
    throw new S3Error('InvalidRange', 'the requested range is not satisfiable', {
      ActualObjectSize: String(size),
    });
  }
  return { start, end };
}

function requireUploadId(ctx: S3RequestContext): string {
  const uploadId = ctx.address.query.get('uploadId');
  if (!uploadId)
    throw new S3Error('InvalidArgument', 'uploadId is required', { ArgumentName: 'uploadId' });
  return uploadId;
}
