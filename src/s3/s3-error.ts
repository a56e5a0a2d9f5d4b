/**
 * Errors the S3 listener answers on purpose. Each code has exactly one HTTP status, taken from
 * Amazon S3's error table, so every client (aws-cli, rclone, the SDKs) classifies it as it would
 * on AWS: 4xx is final, 503 SlowDown is retried with back-off.
 */
export const S3_ERROR_STATUS = {
  AccessDenied: 403,
  InvalidAccessKeyId: 403,
  SignatureDoesNotMatch: 403,
  RequestTimeTooSkewed: 403,
  AuthorizationHeaderMalformed: 400,
  AuthorizationQueryParametersError: 400,
  NoSuchBucket: 404,
  NoSuchKey: 404,
  NoSuchUpload: 404,
  BucketAlreadyOwnedByYou: 409,
  InvalidBucketName: 400,
  InvalidPart: 400,
  InvalidPartOrder: 400,
  InvalidRange: 416,
  EntityTooLarge: 400,
  EntityTooSmall: 400,
  KeyTooLongError: 400,
  MetadataTooLarge: 400,
  XAmzContentSHA256Mismatch: 400,
  BadDigest: 400,
  InvalidDigest: 400,
  IncompleteBody: 400,
  MalformedXML: 400,
  MaxMessageLengthExceeded: 400,
  InvalidArgument: 400,
  InvalidRequest: 400,
  InvalidURI: 400,
  RequestHeaderSectionTooLarge: 400,
  RequestTimeout: 400,
  MissingContentLength: 411,
  PreconditionFailed: 412,
  SlowDown: 503,
  /** The gateway is shutting down (retried, like SlowDown). */
  ServiceUnavailable: 503,
  NotImplemented: 501,
  MethodNotAllowed: 405,
  /** A CORS preflight without Origin (S3's answer). */
  BadRequest: 400,
  /** A CORS preflight: no bucket here has a CORS configuration. */
  AccessForbidden: 403,
  InternalError: 500,
  /** Not an AWS code: a full tape. 507 is not retried by aws-cli or the SDKs. */
  InsufficientStorage: 507,
} as const;

export type S3ErrorCode = keyof typeof S3_ERROR_STATUS;

export class S3Error extends Error {
  readonly status: number;

  constructor(
    readonly code: S3ErrorCode,
    message: string,
    /** Extra child elements of `<Error>` (AWS adds some per code, e.g. `ServerTime`). */
    readonly details: Record<string, string> = {},
    /** Extra response headers (e.g. `Retry-After` on SlowDown). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'S3Error';
    this.status = S3_ERROR_STATUS[code];
  }
}

export function isS3Error(error: unknown): error is S3Error {
  return error instanceof S3Error;
}
