import { PassThrough } from 'node:stream';
import { S3Response, XML_CONTENT_TYPE } from '../s3-context';

/**
 * CompleteMultipartUpload and CopyObject commit to the chain and can take longer than a client's
 * read timeout (aws-cli: 60 s). S3's answer, which every SDK understands: if the work is slow,
 * send `200` and the XML declaration at once, a space every few seconds to keep the connection
 * alive, and then either the result document or an `<Error>` document (clients check the body
 * of a 200 for these two operations).
 */
export interface PatienceOptions {
  /** Answer normally when the work finishes within this time. */
  firstByteMs: number;
  intervalMs: number;
}

export const DEFAULT_PATIENCE: PatienceOptions = { firstByteMs: 2000, intervalMs: 5000 };
const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

export async function respondPatiently(
  work: Promise<S3Response>,
  renderError: (error: unknown) => string,
  options: PatienceOptions = DEFAULT_PATIENCE,
): Promise<S3Response> {
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<'slow'>((resolve) => {
    timer = setTimeout(() => resolve('slow'), options.firstByteMs);
  });
  const first = await Promise.race([work, slow]).finally(() => clearTimeout(timer));
  if (first !== 'slow') return first;

  const body = new PassThrough();
  body.write(DECLARATION);
  const keepAlive = setInterval(() => body.write(' '), options.intervalMs);
  body.once('close', () => clearInterval(keepAlive));
  work.then(
    (response) => {
      clearInterval(keepAlive);
      body.end(withoutDeclaration(typeof response.body === 'string' ? response.body : ''));
    },
    (error: unknown) => {
      clearInterval(keepAlive);
      body.end(withoutDeclaration(renderError(error)));
    },
  );
  return { status: 200, headers: { 'content-type': XML_CONTENT_TYPE }, body };
}

function withoutDeclaration(xml: string): string {
  return xml.startsWith('<?xml') ? xml.slice(xml.indexOf('?>') + 2).trimStart() : xml;
}
