import type { Readable } from 'node:stream';
import { uploadErrors } from './upload-error';

/**
 * A small JSON request body read whole (the gateway parses no bodies itself: its content-type
 * parser hands every route the raw stream). More than `max` bytes is 413, before or while read.
 */
export async function readBoundedBody(
  body: Readable,
  contentLength: string | undefined,
  max: number,
): Promise<Buffer> {
  if (contentLength !== undefined && Number(contentLength) > max) {
    throw uploadErrors.tooLarge(`the body is at most ${max} bytes`);
  }
  const parts: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    length += (chunk as Buffer).length;
    if (length > max) {
      body.destroy();
      throw uploadErrors.tooLarge(`the body is at most ${max} bytes`);
    }
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts, length);
}
