import type { FastifyReply } from 'fastify';
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
