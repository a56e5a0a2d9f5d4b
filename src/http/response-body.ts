import type { ServerResponse } from 'node:http';
import { pipeline, Readable } from 'node:stream';

/**
 * Ends a response whose head is written with its body: none, bytes in memory, or a stream of
 * verified bytes, where a failure after the status line can only cut the connection. The site
 * edge and the object answer writer both write their bodies with it.
 */
export function endWithBody(res: ServerResponse, body: Buffer | Readable | null): void {
  if (body === null) {
    res.end();
  } else if (Buffer.isBuffer(body)) {
    res.end(body);
  } else {
    pipeline(body, res, (err) => {
      if (err && !res.destroyed) res.destroy();
    });
  }
}
