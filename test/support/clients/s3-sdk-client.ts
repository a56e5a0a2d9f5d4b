import {
  CreateMultipartUploadCommand,
  S3Client,
  S3ClientConfig,
  UploadPartCommand,
} from '@aws-sdk/client-s3';

/** @aws-sdk/client-s3 pointed at a test listener, path style, one attempt unless told otherwise. */
export function sdkClient(
  endpoint: string,
  accessKeyId: string,
  secretAccessKey: string,
  extra: S3ClientConfig = {},
): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    maxAttempts: 1,
    ...extra,
  });
}

/** CreateMultipartUpload of `key`: the upload id. */
export async function createUpload(s3: S3Client, bucket: string, key: string): Promise<string> {
  const created = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
  return created.UploadId!;
}

/** UploadPart: the part's ETag. */
export async function uploadPart(
  s3: S3Client,
  bucket: string,
  key: string,
  uploadId: string,
  partNumber: number,
  body: string | Uint8Array,
): Promise<string> {
  const res = await s3.send(
    new UploadPartCommand({
      Bucket: bucket,
      Key: key,
      UploadId: uploadId,
      PartNumber: partNumber,
      Body: body,
    }),
  );
  return res.ETag!;
}

/** The request headers as the SDK finally sent them (after signing), one entry per attempt. */
export function captureHeaders(s3: S3Client): Record<string, string>[] {
  const seen: Record<string, string>[] = [];
  s3.middlewareStack.add(
    (next) => async (args) => {
      seen.push({ ...(args.request as { headers: Record<string, string> }).headers });
      return next(args);
    },
    { step: 'deserialize', name: 'captureSentHeaders' },
  );
  return seen;
}

export interface SdkFailure {
  name: string;
  message: string;
  status?: number;
}

/** The error a call failed with, as the SDK names it; throws if the call succeeded. */
export async function failure(promise: Promise<unknown>): Promise<SdkFailure> {
  try {
    await promise;
  } catch (error) {
    const e = error as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, message: e.message, status: e.$metadata?.httpStatusCode };
  }
  throw new Error('expected the request to fail');
}
