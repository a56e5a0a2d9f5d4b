import { S3Client } from '@aws-sdk/client-s3';
import type { TrackS3Config } from '../../config/storage.config';

/** Builds the client for a track bucket: plain PutObject (no aws-chunked trailers, Ceph 16). */
export function trackS3Client(s3: TrackS3Config): S3Client {
  const signed = s3.access_key_id !== undefined && s3.secret_access_key !== undefined;
  return new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: s3.path_style,
    credentials: signed
      ? { accessKeyId: s3.access_key_id!, secretAccessKey: s3.secret_access_key! }
      : { accessKeyId: '', secretAccessKey: '' },
    // A public-read bucket: requests go unsigned.
    ...(signed ? {} : { signer: { sign: (request) => Promise.resolve(request) } }),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 2,
    // A store that connects but stops answering fails the request once its socket has been
    // idle for request_timeout_ms (the handler's requestTimeout alone only logs a warning, and
    // would also bound a large upload's whole duration, not its silence).
    requestHandler: {
      connectionTimeout: Math.min(s3.request_timeout_ms, 3000),
      socketTimeout: s3.request_timeout_ms,
    },
  });
}

/** The HTTP status of an S3 client's error (404 also for its NotFound/NoSuchKey names). */
export function statusOf(err: unknown): number | undefined {
  const meta = (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata;
  if (meta?.httpStatusCode !== undefined) return meta.httpStatusCode;
  const name = (err as { name?: string } | undefined)?.name;
  return name === 'NotFound' || name === 'NoSuchKey' ? 404 : undefined;
}

/** An S3 client's error in a few words (its code and status), for logs and /healthz. */
export function describeS3Error(err: unknown): string {
  const status = statusOf(err);
  const e = err as { name?: string; code?: string; message?: string };
  const what = e?.code ?? e?.name ?? 'error';
  return status !== undefined ? `${what}, HTTP ${status}` : `${what}: ${e?.message ?? ''}`.trim();
}
