import type { FastifyReply } from 'fastify';
import type { ServerResponse } from 'node:http';
import { ErrorBody } from './error-body';

export const ERROR_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Sends the stable error body. A refusal can change from one request to the next (a track gets
 * certified, a budget refills), so it is never cached unless its route chose a policy of its own;
 * and a browser never sniffs the body into a page.
 */
export function sendErrorBody(reply: FastifyReply, status: number, body: ErrorBody): void {
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  void reply
    .code(status)
    .header('content-type', ERROR_CONTENT_TYPE)
    .header('x-content-type-options', 'nosniff')
    .send(body);
}

/**
 * `sendErrorBody` for edges that write Node responses themselves: the same headers (headers
 * already set on `res` stay, a route's own Cache-Control included) and the same JSON body.
 */
export function writeErrorBody(res: ServerResponse, status: number, body: ErrorBody): void {
  const text = JSON.stringify(body);
  if (!res.hasHeader('cache-control')) res.setHeader('cache-control', 'no-store');
  res.setHeader('content-type', ERROR_CONTENT_TYPE);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.writeHead(status);
  res.end(text);
}
