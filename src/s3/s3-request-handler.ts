import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { singleHeader } from './http-header';
import { respondPatiently } from './body/patient-response';
import type { S3Address } from './s3-address';
import { S3Authenticator } from './auth/s3-authenticator';
import { S3Backend, S3Bucket } from './s3-backend';
import { S3BucketHandlers } from './handlers/s3-bucket-handlers';
import { S3RequestContext, S3Response } from './s3-context';
import { S3Credential } from './s3-credential-store';
import { S3Error } from './s3-error';
import { backendErrorToS3 } from './s3-error-mapping';
import { S3MultipartHandlers } from './handlers/s3-multipart-handlers';
import { S3ObjectHandlers } from './handlers/s3-object-handlers';
import { meterKind, refuseCorsPreflight, resolveOperation, S3OperationName } from './s3-operation';
import { S3RequestMeter } from './s3-request-meter';
import { errorXml } from './xml/s3-xml-responses';

/** What the listener knows about a request besides the raw message. */
export interface S3RequestInfo {
  requestId: string;
  clientIp: string;
  contentType: string | undefined;
  /** `http://host:port` as the client addressed the listener. */
  origin: string;
  sendContinue: () => void;
}

/**
 * One S3 request, end to end, from the address the listener parsed once: operation, metering,
 * SigV4, tape scope, then the operation's handler. Every failure leaves as an S3Error (unknown
 * ones as InternalError, logged here with their stack, never sent).
 */
@Injectable()
export class S3RequestHandler {
  private readonly logger = new Logger('s3');

  constructor(
    private readonly authenticator: S3Authenticator,
    private readonly backend: S3Backend,
    private readonly meter: S3RequestMeter,
    private readonly buckets: S3BucketHandlers,
    private readonly objects: S3ObjectHandlers,
    private readonly multipart: S3MultipartHandlers,
  ) {}

  async handle(raw: IncomingMessage, address: S3Address, info: S3RequestInfo): Promise<S3Response> {
    const method = raw.method ?? 'GET';
    refuseCorsPreflight(method, singleHeader(raw.headers, 'origin'));
    const operation = resolveOperation(
      method,
      address,
      singleHeader(raw.headers, 'x-amz-copy-source'),
    );
    const decision = await this.meter.consume(raw, meterKind(operation));
    if (!decision.allowed) {
      // The metering gate's refusal (src/metering/metering-gate.ts): 503 SlowDown, Retry-After.
      const { code, message, headers } = decision.slowDown;
      throw new S3Error(code, message, {}, headers);
    }
    const { credential, auth } = await this.authenticator.authenticate({
      method,
      rawPath: address.rawPath,
      rawQuery: address.rawQuery,
      rawHeaders: raw.rawHeaders,
    });
    const bucket =
      address.bucket === undefined
        ? undefined
        : await this.authorize(address.bucket, credential, operation);
    const ctx: S3RequestContext = {
      requestId: info.requestId,
      operation,
      address,
      raw,
      contentType: info.contentType,
      auth,
      credential,
      bucket,
      origin: info.origin,
      sendContinue: info.sendContinue,
    };
    const work = this.dispatch(ctx);
    if (
      operation === 'CompleteMultipartUpload' ||
      operation === 'CopyObject' ||
      operation === 'UploadPartCopy'
    ) {
      return respondPatiently(work, (error) =>
        errorXml(this.toS3Error(error, address), resourceOf(address), info.requestId),
      );
    }
    return work;
  }

  /** Any failure as the S3Error to answer; unexpected ones are logged and become InternalError. */
  toS3Error(error: unknown, address?: S3Address): S3Error {
    const mapped = backendErrorToS3(error, {
      key: address?.key,
      uploadId: address?.query.get('uploadId'),
    });
    if (mapped) return mapped;
    // The client sees only "internal error": the log says what failed, where, and the stack.
    const message = error instanceof Error ? error.message : String(error);
    const path = address?.rawPath;
    this.logger.error(
      {
        event: 'error_answer',
        msg: `S3 ${path ?? 'request'} answered 500 InternalError: ${message}`,
        path,
        status: 500,
        code: 'InternalError',
        error: message,
      },
      error instanceof Error ? error.stack : undefined,
    );
    return new S3Error('InternalError', 'we encountered an internal error; please try again');
  }

  private async authorize(
    name: string,
    credential: S3Credential,
    operation: S3OperationName,
  ): Promise<S3Bucket> {
    const bucket = await this.backend.findBucket(name);
    if (!bucket) {
      if (operation === 'CreateBucket') {
        throw new S3Error(
          'AccessDenied',
          'buckets are tapes: reserve one with `tape create`; its label is the bucket name',
        );
      }
      throw new S3Error('NoSuchBucket', 'the specified bucket does not exist', {
        BucketName: name,
      });
    }
    if (bucket.tapeAddress !== credential.tapeAddress) {
      throw new S3Error('AccessDenied', 'this credential is scoped to another tape');
    }
    return bucket;
  }

  private dispatch(ctx: S3RequestContext): Promise<S3Response> {
    switch (ctx.operation) {
      case 'ListBuckets':
        return this.buckets.listBuckets(ctx);
      case 'HeadBucket':
        return this.buckets.headBucket();
      case 'GetBucketLocation':
        return this.buckets.getBucketLocation();
      case 'CreateBucket':
        return this.buckets.createBucket();
      case 'ListObjectsV2':
        return this.buckets.listObjectsV2(ctx);
      case 'ListObjects':
        return this.buckets.listObjectsV1(ctx);
      case 'ListMultipartUploads':
        return this.buckets.listMultipartUploads(ctx);
      case 'DeleteObjects':
        return this.objects.deleteObjects(ctx);
      case 'HeadObject':
        return this.objects.headObject(ctx);
      case 'GetObject':
        return this.objects.getObject(ctx);
      case 'GetObjectAttributes':
        return this.objects.getObjectAttributes(ctx);
      case 'PutObject':
        return this.objects.putObject(ctx);
      case 'CopyObject':
        return this.objects.copyObject(ctx);
      case 'DeleteObject':
        return this.objects.deleteObject(ctx);
      case 'CreateMultipartUpload':
        return this.multipart.create(ctx);
      case 'UploadPart':
        return this.multipart.uploadPart(ctx);
      case 'UploadPartCopy':
        return this.multipart.uploadPartCopy(ctx);
      case 'CompleteMultipartUpload':
        return this.multipart.complete(ctx);
      case 'AbortMultipartUpload':
        return this.multipart.abort(ctx);
      case 'ListParts':
        return this.multipart.listParts(ctx);
    }
  }
}

/** The `<Resource>` of an error: the bucket and key addressed. */
export function resourceOf(address: S3Address | undefined): string {
  if (!address?.bucket) return '/';
  return address.key === undefined ? `/${address.bucket}` : `/${address.bucket}/${address.key}`;
}
