import type { FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { codeForStatus, errorBody } from './error-body';
import { ERROR_CONTENT_TYPE, sendErrorBody } from './error-reply';

/**
 * Requests refused before any route sees them, answered in the gateway's own shape instead of
 * Fastify's or Node's default JSON:
 *
 * - Fastify's router (`frameworkErrors`): a URL it cannot percent-decode as UTF-8
 *   (`FST_ERR_BAD_URL`), a path parameter past `maxParamLength` (`FST_ERR_MAX_PARAM_LENGTH`);
 * - Node's HTTP parser (`clientErrorHandler`): bytes HTTP does not allow in the request line or
 *   headers, headers too large, a request not received in time. There is no request object
 *   yet, so the answer is written on the socket, which is then closed.
 *
 * Messages never echo the URL: it is hostile input.
 */

export interface Refusal {
  status: number;
  message: string;
}

const FRAMEWORK_REFUSALS: Partial<Record<string, Refusal>> = {
  FST_ERR_BAD_URL: {
    status: 400,
    message: 'the request URL is malformed: bad percent-encoding or invalid UTF-8',
  },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, message: 'a segment of the request URL is too long' },
};

const CLIENT_ERROR_REFUSALS: Partial<Record<string, Refusal>> = {
  HPE_INVALID_URL: { status: 400, message: 'the request URL holds bytes HTTP does not allow' },
  HPE_HEADER_OVERFLOW: { status: 431, message: 'the request line and headers are too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'the request was not received in time' },
};

/** Fastify's router errors: by code, or their own status for codes not named here. */
export function frameworkRefusal(error: { code?: string; statusCode?: number }): Refusal {
  const known = error.code === undefined ? undefined : FRAMEWORK_REFUSALS[error.code];
  if (known) return known;
  const status = error.statusCode ?? 500;
  return { status, message: STATUS_CODES[status]?.toLowerCase() ?? 'error' };
}

/** Node's HTTP parser errors (`HPE_*` codes, and the request timeout). */
export function clientErrorRefusal(error: { code?: string }): Refusal {
  const known = error.code === undefined ? undefined : CLIENT_ERROR_REFUSALS[error.code];
  return known ?? { status: 400, message: 'the request is not valid HTTP' };
}

/** `frameworkErrors` of the gateway listener: the stable error body. */
export function sendFrameworkError(
  error: { code?: string; statusCode?: number },
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const refusal = frameworkRefusal(error);
  sendErrorBody(reply, refusal.status, errorBody(codeForStatus(refusal.status), refusal.message));
}

/** `clientErrorHandler` of the gateway listener: the stable error body, on the socket. */
export const writeClientError = clientErrorHandler((error) => {
  const refusal = clientErrorRefusal(error);
  return {
    status: refusal.status,
    contentType: ERROR_CONTENT_TYPE,
    body: JSON.stringify(errorBody(codeForStatus(refusal.status), refusal.message)),
  };
});

/** A whole answer to a request that could not be parsed. */
export interface RawAnswer {
  status: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

/**
 * A `clientErrorHandler` writing `render`'s answer on the socket, then closing it (the parser
 * cannot resume). As Node does: nothing on a reset or destroyed socket, nor on one that is still
 * sending a response (a pipelined request behind it failed).
 */
export function clientErrorHandler(
  render: (error: NodeJS.ErrnoException) => RawAnswer,
): (error: NodeJS.ErrnoException, socket: Socket) => void {
  return (error, socket) => {
    const inFlight = (socket as Socket & { _httpMessage?: unknown })._httpMessage;
    if (error.code !== 'ECONNRESET' && !socket.destroyed && socket.writable && !inFlight) {
      const answer = render(error);
      const lines = [
        `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Error'}`,
        `content-type: ${answer.contentType}`,
        `content-length: ${Buffer.byteLength(answer.body)}`,
        'cache-control: no-store',
        'x-content-type-options: nosniff',
        ...Object.entries(answer.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
        'connection: close',
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n${answer.body}`);
    }
    socket.destroy();
  };
}
