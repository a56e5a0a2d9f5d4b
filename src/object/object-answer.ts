import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

/** What answering an object request needs of it: its method and headers. */
export interface ObjectRequest {
  readonly method?: string;
  readonly headers: IncomingHttpHeaders;
}

/**
 * The answer of `GET|HEAD /object/{track}`, as ObjectService returns it and the controller
 * writes it: status, headers, and the body (none for HEAD and 304, verified bytes in memory, or
 * a primed stream of verified bytes). `bytes` is what the answer sends, charged against the
 * client's byte budget before it goes out.
 */
export interface ObjectAnswer {
  readonly status: 200 | 206 | 304;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | Readable | null;
  readonly bytes: number;
}
