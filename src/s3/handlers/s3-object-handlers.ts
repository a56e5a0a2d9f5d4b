import { Injectable } from '@nestjs/common';
import { contentRange, parseSingleRange, unsatisfiedContentRange } from '../../tracks/byte-range';
import { singleHeader } from '../http-header';
import type { IncomingHttpHeaders } from 'node:http';
import {
  checksumModeEnabled,
  evaluateConditions,
  objectHeaders,
  readUserMetadata,
} from './object-headers';
import { readStoredHeaders } from '../object-metadata';
import { checkKey, publishableKey, visibleKey } from '../s3-address';
import { objectAttributesXml, partSlice, PartSlice, requestedPartNumber } from './object-parts';
import { S3Backend, S3BackendError, S3Bucket, S3ByteRange, S3ObjectHead } from '../s3-backend';
import { S3BodyReader } from '../body/s3-body-reader';
import { bucketOf, keyOf, S3RequestContext, S3Response, xmlResponse } from '../s3-context';
import { S3Error } from '../s3-error';
import { backendErrorToS3 } from '../s3-error-mapping';
import {
  copyObjectXml,
  deleteResultXml,
  DeleteResultEntry,
  quoteEtag,
} from '../xml/s3-xml-responses';
import { MAX_REQUEST_XML_BYTES, parseDeleteObjects } from '../xml/s3-xml-requests';
import { percentDecodeUtf8 } from '../uri-encoding';
import { parseWriteCondition } from './write-conditions';
import { decimalText } from '../../http/decimal-text';

/**
 * The byte range a GetObject serves. Like S3 (and as RFC 9110 allows), a header that is not one
 * well-formed byte range is ignored and the whole object sent; a well-formed range that starts
 * past the end, or any range of an empty object, is 416 InvalidRange.
 */
export function resolveRange(header: string | undefined, size: number): S3ByteRange | undefined {
  const range = parseSingleRange(header, size, { emptySuffix: 'unsatisfiable' });
  switch (range.kind) {
    case 'none':
      return undefined;
    case 'single':
      return { start: range.start, end: range.end };
    case 'unsatisfiable':
      throw new S3Error(
        'InvalidRange',
        'the requested range is not satisfiable',
        { ActualObjectSize: String(size) },
        { 'content-range': unsatisfiedContentRange(size) },
      );
  }
}

/** Object operations: reads stream from the backend, writes stream verified bodies into it. */
@Injectable()
export class S3ObjectHandlers {
  constructor(
    private readonly backend: S3Backend,
    private readonly bodies: S3BodyReader,
  ) {}

  async headObject(ctx: S3RequestContext): Promise<S3Response> {
    const partNumber = requestedPartNumber(ctx.address.query, ctx.raw.headers);
    const head = await this.backend.headObject(bucketOf(ctx), visibleKey(keyOf(ctx)));
    if (evaluateConditions(ctx.raw.headers, head) === 'not-modified') return notModified(head);
    const headers = objectHeaders(head, ctx.address.query, { headers: ctx.raw.headers });
    if (partNumber === undefined) return { status: 200, headers };
    const part = partSlice(head, partNumber);
    return {
      status: part.range ? 206 : 200,
      headers: partHeaders(headers, part, head, ctx.raw.headers),
    };
  }

  /** GetObjectAttributes: ETag, Checksum, ObjectParts, StorageClass, ObjectSize. */
  async getObjectAttributes(ctx: S3RequestContext): Promise<S3Response> {
    const head = await this.backend.headObject(bucketOf(ctx), visibleKey(keyOf(ctx)));
    const xml = objectAttributesXml(head, ctx.raw.headers);
    return xmlResponse(xml, 200, { 'last-modified': head.lastModified.toUTCString() });
  }

  async getObject(ctx: S3RequestContext): Promise<S3Response> {
    const partNumber = requestedPartNumber(ctx.address.query, ctx.raw.headers);
    const bucket = bucketOf(ctx);
    const key = visibleKey(keyOf(ctx));
    const rangeHeader = ctx.raw.headers.range;
    if (partNumber !== undefined) return this.getPart(ctx, bucket, key, partNumber);
    if (rangeHeader === undefined) {
      // One backend call for the common case; conditions are checked on the head it returns.
      const { head, body } = await this.backend.getObject(bucket, key);
      try {
        if (evaluateConditions(ctx.raw.headers, head) === 'not-modified') {
          body.destroy();
          return notModified(head);
        }
      } catch (error) {
        body.destroy();
        throw error;
      }
      const headers = objectHeaders(head, ctx.address.query, { headers: ctx.raw.headers });
      return { status: 200, headers, body };
    }
    const head = await this.backend.headObject(bucket, key);
    if (evaluateConditions(ctx.raw.headers, head) === 'not-modified') return notModified(head);
    const range = resolveRange(rangeHeader, head.size);
    const { head: current, body } = await this.backend.getObject(bucket, key, range);
    const headers = objectHeaders(current, ctx.address.query, {
      headers: ctx.raw.headers,
      ranged: range !== undefined,
    });
    if (!range) return { status: 200, headers, body };
    headers['content-length'] = decimalText(range.end - range.start + 1);
    headers['content-range'] = contentRange(range, current.size);
    return { status: 206, headers, body };
  }

  /** GET by `partNumber`: that part's bytes (206 with its Content-Range) and the parts count. */
  private async getPart(
    ctx: S3RequestContext,
    bucket: S3Bucket,
    key: string,
    partNumber: number,
  ): Promise<S3Response> {
    const head = await this.backend.headObject(bucket, key);
    if (evaluateConditions(ctx.raw.headers, head) === 'not-modified') return notModified(head);
    const part = partSlice(head, partNumber);
    const { head: current, body } = await this.backend.getObject(bucket, key, part.range);
    const headers = objectHeaders(current, ctx.address.query, {
      headers: ctx.raw.headers,
      ranged: part.range !== undefined,
    });
    return {
      status: part.range ? 206 : 200,
      headers: partHeaders(headers, part, current, ctx.raw.headers),
      body,
    };
  }

  async putObject(ctx: S3RequestContext): Promise<S3Response> {
    const bucket = bucketOf(ctx);
    const key = publishableKey(keyOf(ctx));
    const metadata = readUserMetadata(ctx.raw.headers);
    const condition = parseWriteCondition(ctx.raw.headers);
    const body = this.bodies.open(ctx, { unsized: true });
    const result = await this.bodies.consume(body, () =>
      this.backend.putObject(bucket, {
        key,
        contentType: ctx.contentType,
        metadata,
        headers: readStoredHeaders(ctx.raw.headers),
        checksum: body.checksum,
        size: body.size,
        body: body.stream,
        condition,
      }),
    );
    const headers: Record<string, string> = { etag: quoteEtag(result.etag) };
    const checksum = body.checksum?.value();
    if (body.checksum && checksum) {
      headers[`x-amz-checksum-${body.checksum.algorithm}`] = checksum;
      headers['x-amz-checksum-type'] = 'FULL_OBJECT';
    }
    return { status: 200, headers };
  }

  async copyObject(ctx: S3RequestContext): Promise<S3Response> {
    const bucket = bucketOf(ctx);
    const destinationKey = publishableKey(keyOf(ctx));
    const source = parseCopySource(singleHeader(ctx.raw.headers, 'x-amz-copy-source'));
    const sourceBucket = await copySourceBucket(this.backend, bucket, source.bucket);
    const directive = (
      singleHeader(ctx.raw.headers, 'x-amz-metadata-directive') ?? 'COPY'
    ).toUpperCase();
    if (directive !== 'COPY' && directive !== 'REPLACE') {
      throw new S3Error('InvalidArgument', 'x-amz-metadata-directive must be COPY or REPLACE');
    }
    if (sourceBucket === bucket && source.key === destinationKey && directive === 'COPY') {
      throw new S3Error(
        'InvalidRequest',
        "this copy request is illegal because it is trying to copy an object to itself without changing the object's metadata",
      );
    }
    if (Object.keys(ctx.raw.headers).some((h) => h.startsWith('x-amz-copy-source-if-'))) {
      const head = await this.backend.headObject(sourceBucket, source.key);
      evaluateConditions(ctx.raw.headers, head, 'x-amz-copy-source-');
    }
    const replace =
      directive === 'REPLACE'
        ? {
            contentType: ctx.contentType,
            metadata: readUserMetadata(ctx.raw.headers),
            headers: readStoredHeaders(ctx.raw.headers),
          }
        : undefined;
    const result = await this.backend.copyObject(bucket, {
      ...(sourceBucket !== bucket ? { sourceBucket } : {}),
      sourceKey: source.key,
      destinationKey,
      replace,
      condition: parseWriteCondition(ctx.raw.headers),
    });
    return xmlResponse(copyObjectXml(result.etag, result.lastModified, result.checksum));
  }

  async deleteObject(ctx: S3RequestContext): Promise<S3Response> {
    const key = keyOf(ctx);
    const [outcome] = await this.backend.deleteObjects(bucketOf(ctx), [key]);
    if (outcome?.error) throw backendErrorToS3(outcome.error, { key }) ?? outcome.error;
    return { status: 204 };
  }

  async deleteObjects(ctx: S3RequestContext): Promise<S3Response> {
    const bucket = bucketOf(ctx);
    const request = parseDeleteObjects(await this.bodies.readSmall(ctx, MAX_REQUEST_XML_BYTES));
    const entries: DeleteResultEntry[] = [];
    const valid: string[] = [];
    for (const key of request.keys) {
      try {
        checkKey(key);
        valid.push(key);
      } catch (error) {
        const s3 = error as S3Error;
        entries.push({ key, error: { code: s3.code, message: s3.message } });
      }
    }
    const outcomes = valid.length > 0 ? await this.backend.deleteObjects(bucket, valid) : [];
    for (const outcome of outcomes) {
      if (!outcome.error) {
        entries.push({ key: outcome.key });
        continue;
      }
      const s3 = backendErrorToS3(outcome.error, { key: outcome.key });
      entries.push({
        key: outcome.key,
        error: s3
          ? { code: s3.code, message: s3.message }
          : { code: 'InternalError', message: internalErrorMessage(outcome.error) },
      });
    }
    return xmlResponse(deleteResultXml(entries, request.quiet));
  }
}

/**
 * A DeleteObjects key's 500: the backend's reason when its error gives one (the backend's
 * errors are written for clients: tape-backend's `groupFailedError`), else the generic one.
 */
function internalErrorMessage(error: S3BackendError): string {
  const generic = 'we encountered an internal error; please try again';
  return error.message ? `${generic}: ${error.message}` : generic;
}

/**
 * The answer to a GET/HEAD by partNumber: the part's length and range, the parts count, and with
 * `x-amz-checksum-mode: ENABLED` the part's own checksum (with the object's checksum type).
 */
function partHeaders(
  headers: Record<string, string>,
  part: PartSlice,
  head: S3ObjectHead,
  request: IncomingHttpHeaders,
): Record<string, string> {
  if (part.partsCount !== undefined) headers['x-amz-mp-parts-count'] = String(part.partsCount);
  if (part.range) {
    headers['content-length'] = decimalText(part.range.end - part.range.start + 1);
    headers['content-range'] = contentRange(part.range, head.size);
  }
  if (part.checksum !== undefined && head.checksum && checksumModeEnabled(request)) {
    headers[`x-amz-checksum-${head.checksum.algorithm}`] = part.checksum;
    headers['x-amz-checksum-type'] = head.checksum.type;
  }
  return headers;
}

function notModified(head: S3ObjectHead): S3Response {
  return {
    status: 304,
    headers: { etag: quoteEtag(head.etag), 'last-modified': head.lastModified.toUTCString() },
  };
}

/**
 * The bucket a copy reads from: the request's own, or another tape's. Writes reach only the
 * credential's tape, but every tape's objects are public (the site routes serve them to anyone),
 * so a copy may read from any bucket, as a user allowed on both could on S3.
 */
export async function copySourceBucket(
  backend: S3Backend,
  bucket: S3Bucket,
  name: string,
): Promise<S3Bucket> {
  if (name === bucket.name) return bucket;
  const other = await backend.findBucket(name);
  if (!other) throw new S3Error('NoSuchBucket', 'the copy source bucket does not exist');
  return other;
}

/** `x-amz-copy-source`: `[/]<bucket>/<key>[?versionId=…]`, percent-encoded. */
export function parseCopySource(header: string | undefined): { bucket: string; key: string } {
  const invalid = () =>
    new S3Error('InvalidArgument', 'x-amz-copy-source must be <bucket>/<key>, URL-encoded', {
      ArgumentName: 'x-amz-copy-source',
    });
  if (!header) throw invalid();
  const q = header.indexOf('?');
  const raw = (q < 0 ? header : header.slice(0, q)).replace(/^\//, '');
  if (q >= 0 && !/^versionId=(null)?$/.test(header.slice(q + 1))) {
    throw new S3Error('NotImplemented', 'object versions are not implemented');
  }
  const decoded = percentDecodeUtf8(raw);
  if (decoded === null) throw invalid();
  const slash = decoded.indexOf('/');
  if (slash <= 0 || slash === decoded.length - 1) throw invalid();
  const key = decoded.slice(slash + 1);
  checkKey(key);
  return { bucket: decoded.slice(0, slash), key: visibleKey(key) };
}
