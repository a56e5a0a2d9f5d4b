import { randomBytes } from 'node:crypto';
import { clientErrorHandler, RawAnswer } from '../http/framework-errors';
import { S3Error } from './s3-error';
import { errorXml } from './xml/s3-xml-responses';

/** Request ids in the shape of Amazon S3's: 16 upper-case hex digits. */
export function newRequestId(): string {
  return randomBytes(8).toString('hex').toUpperCase();
}

/**
 * Requests Node's HTTP parser refused (bytes HTTP does not allow in the URL, headers too large,
 * garbage): S3 clients get S3's XML error, as for every other refusal, not Node's or Fastify's.
 */
export function s3ClientErrorAnswer(error: NodeJS.ErrnoException): RawAnswer {
  const s3 = s3ErrorOf(error);
  const requestId = newRequestId();
  return {
    status: s3.status,
    contentType: 'application/xml',
    body: errorXml(s3, '/', requestId),
    headers: { 'x-amz-request-id': requestId },
  };
}

export const writeS3ClientError = clientErrorHandler(s3ClientErrorAnswer);

const CLIENT_ERRORS: Partial<Record<string, () => S3Error>> = {
  HPE_INVALID_URL: () => new S3Error('InvalidURI', "Couldn't parse the specified URI."),
  HPE_HEADER_OVERFLOW: () =>
    new S3Error(
      'RequestHeaderSectionTooLarge',
      'your request header section exceeds the maximum allowed size',
    ),
  ERR_HTTP_REQUEST_TIMEOUT: () =>
    new S3Error('RequestTimeout', 'your request was not received within the timeout'),
};

function s3ErrorOf(error: NodeJS.ErrnoException): S3Error {
  const known = error.code === undefined ? undefined : CLIENT_ERRORS[error.code];
  return known ? known() : new S3Error('InvalidRequest', 'the request is not valid HTTP');
}
