import { Injectable } from '@nestjs/common';
import { S3Config } from '../../config/s3.config';
import {
  decodeContinuationToken,
  encodeContinuationToken,
  listObjectsPage,
  parseMaxKeys,
} from './list-objects';
import { listUploadsPage } from './list-uploads';
import { S3Backend } from '../s3-backend';
import { bucketOf, S3RequestContext, S3Response, xmlResponse } from '../s3-context';
import { S3Error } from '../s3-error';
import {
  listBucketsXml,
  listMultipartUploadsXml,
  listObjectsV1Xml,
  listObjectsV2Xml,
  locationXml,
} from '../xml/s3-xml-responses';

/** Bucket-level operations. A bucket is a tape: it exists iff the tape does; it is never created here. */
@Injectable()
export class S3BucketHandlers {
  constructor(
    private readonly backend: S3Backend,
    private readonly config: S3Config,
  ) {}

  async listBuckets(ctx: S3RequestContext): Promise<S3Response> {
    const own = await this.backend.findBucketOfTape(ctx.credential.tapeAddress);
    return xmlResponse(listBucketsXml(own ? [own] : [], ownerOf(ctx)));
  }

  async headBucket(): Promise<S3Response> {
    return { status: 200, headers: { 'x-amz-bucket-region': this.config.region } };
  }

  async getBucketLocation(): Promise<S3Response> {
    return xmlResponse(locationXml(this.config.region));
  }

  /** rclone and others "create" the bucket before syncing: S3 answers 409 for one you own. */
  async createBucket(): Promise<S3Response> {
    throw new S3Error(
      'BucketAlreadyOwnedByYou',
      'your previous request to create the named bucket succeeded and you already own it',
    );
  }

  async listObjectsV2(ctx: S3RequestContext): Promise<S3Response> {
    const bucket = bucketOf(ctx);
    const q = ctx.address.query;
    const prefix = q.get('prefix') ?? '';
    const delimiter = q.get('delimiter') ?? '';
    const maxKeys = parseMaxKeys(q.get('max-keys'));
    const urlEncoded = encodingTypeIsUrl(q);
    const continuationToken = q.get('continuation-token');
    const startAfter = q.get('start-after');
    // An empty token is no token (S3 and Ceph echo it and list from the start).
    const after = continuationToken
      ? decodeContinuationToken(continuationToken)
      : startAfter || undefined;
    const objects = await this.backend.listObjects(bucket, prefix);
    const page = listObjectsPage(objects, { prefix, delimiter, maxKeys, after });
    return xmlResponse(
      listObjectsV2Xml({
        bucket: bucket.name,
        prefix,
        delimiter,
        maxKeys,
        startAfter,
        continuationToken,
        nextContinuationToken:
          page.isTruncated && page.lastReturned !== undefined
            ? encodeContinuationToken(page.lastReturned)
            : undefined,
        isTruncated: page.isTruncated,
        contents: page.contents,
        commonPrefixes: page.commonPrefixes,
        urlEncoded,
        owner: q.get('fetch-owner') === 'true' ? ownerOf(ctx) : undefined,
      }),
    );
  }

  async listObjectsV1(ctx: S3RequestContext): Promise<S3Response> {
    const bucket = bucketOf(ctx);
    const q = ctx.address.query;
    const prefix = q.get('prefix') ?? '';
    const delimiter = q.get('delimiter') ?? '';
    const marker = q.get('marker') ?? '';
    const maxKeys = parseMaxKeys(q.get('max-keys'));
    const urlEncoded = encodingTypeIsUrl(q);
    const objects = await this.backend.listObjects(bucket, prefix);
    const page = listObjectsPage(objects, {
      prefix,
      delimiter,
      maxKeys,
      after: marker || undefined,
    });
    return xmlResponse(
      listObjectsV1Xml({
        bucket: bucket.name,
        prefix,
        delimiter,
        marker,
        nextMarker: page.isTruncated ? page.lastReturned : undefined,
        maxKeys,
        isTruncated: page.isTruncated,
        contents: page.contents,
        commonPrefixes: page.commonPrefixes,
        urlEncoded,
        owner: ownerOf(ctx),
      }),
    );
  }

  async listMultipartUploads(ctx: S3RequestContext): Promise<S3Response> {
    const bucket = bucketOf(ctx);
    const q = ctx.address.query;
    const query = {
      prefix: q.get('prefix') ?? '',
      delimiter: q.get('delimiter') ?? '',
      keyMarker: q.get('key-marker') ?? '',
      uploadIdMarker: q.get('upload-id-marker') ?? '',
      maxUploads: parseMaxKeys(q.get('max-uploads'), 'max-uploads'),
    };
    const urlEncoded = encodingTypeIsUrl(q);
    const page = listUploadsPage(await this.backend.listMultipartUploads(bucket), query);
    return xmlResponse(
      listMultipartUploadsXml({ bucket: bucket.name, ...query, ...page, urlEncoded }),
    );
  }
}

/**
 * The owner S3 answers show (ListBuckets, listings' <Owner>): the credential's access key id.
 * A credential is one tape's, so this names who writes the bucket; it reveals nothing more.
 */
function ownerOf(ctx: S3RequestContext): string {
  return ctx.credential.accessKeyId;
}

function encodingTypeIsUrl(q: Map<string, string>): boolean {
  const value = q.get('encoding-type');
  if (value === undefined) return false;
  if (value !== 'url') {
    throw new S3Error(
      'InvalidArgument',
      'invalid encoding method specified in request (only url is supported)',
      {
        ArgumentName: 'encoding-type',
        ArgumentValue: value,
      },
    );
  }
  return true;
}
