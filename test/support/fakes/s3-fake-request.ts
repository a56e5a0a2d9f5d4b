import type { IncomingMessage } from 'node:http';
import { PassThrough, Readable } from 'node:stream';

/**
 * Just enough of an IncomingMessage for the body pipeline: headers, rawHeaders, `complete`, and
 * the body written in pieces of `pieceSize` bytes (1 exercises every boundary of the decoder).
 */
export function fakeRequest(
  headers: Record<string, string>,
  body: Buffer,
  options: { pieceSize?: number; abortAfter?: number } = {},
): IncomingMessage {
  const stream = new PassThrough() as PassThrough & {
    headers: Record<string, string>;
    rawHeaders: string[];
    complete: boolean;
  };
  stream.headers = Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]),
  );
  stream.rawHeaders = Object.entries(headers).flat();
  stream.complete = false;
  stream.once('end', () => (stream.complete = true));
  const piece = options.pieceSize ?? 65536;
  const limit = options.abortAfter ?? body.length;
  setImmediate(() => {
    for (let offset = 0; offset < limit; offset += piece) {
      stream.write(body.subarray(offset, Math.min(offset + piece, limit)));
    }
    if (options.abortAfter === undefined) stream.end();
    else setImmediate(() => stream.destroy());
  });
  return stream as unknown as IncomingMessage;
}

/** Reads a stream to its end: the bytes, or the error it failed with. */
export async function drain(stream: Readable): Promise<{ data?: Buffer; error?: Error }> {
  const parts: Buffer[] = [];
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) parts.push(chunk);
    return { data: Buffer.concat(parts) };
  } catch (error) {
    return { error: error as Error };
  }
}
