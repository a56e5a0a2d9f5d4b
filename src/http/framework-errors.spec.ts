import type { Socket } from 'node:net';
import {
  clientErrorHandler,
  clientErrorRefusal,
  frameworkRefusal,
  writeClientError,
} from './framework-errors';

function fakeSocket(state: { destroyed?: boolean; writable?: boolean; inFlight?: boolean } = {}) {
  const written: string[] = [];
  const socket = {
    destroyed: state.destroyed ?? false,
    writable: state.writable ?? true,
    _httpMessage: state.inFlight ? {} : null,
    write: (text: string) => written.push(text),
    destroy: jest.fn(),
  };
  return { socket: socket as unknown as Socket, written, destroy: socket.destroy };
}

function parseError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`Parse Error: ${code}`), { code });
}

describe('frameworkRefusal', () => {
  it('maps the router errors to 400 and 414, others to their own status', () => {
    expect(frameworkRefusal({ code: 'FST_ERR_BAD_URL', statusCode: 400 }).status).toBe(400);
    expect(frameworkRefusal({ code: 'FST_ERR_MAX_PARAM_LENGTH' }).status).toBe(414);
    expect(frameworkRefusal({ code: 'FST_ERR_ASYNC_CONSTRAINT', statusCode: 500 })).toEqual({
      status: 500,
      message: 'internal server error',
    });
    expect(frameworkRefusal({}).status).toBe(500);
  });
});

describe('clientErrorRefusal', () => {
  it('maps parser errors to 400, 431 and 408', () => {
    expect(clientErrorRefusal(parseError('HPE_INVALID_URL')).status).toBe(400);
    expect(clientErrorRefusal(parseError('HPE_INVALID_METHOD')).status).toBe(400);
    expect(clientErrorRefusal(parseError('HPE_HEADER_OVERFLOW')).status).toBe(431);
    expect(clientErrorRefusal(parseError('ERR_HTTP_REQUEST_TIMEOUT')).status).toBe(408);
  });
});

describe('clientErrorHandler', () => {
  it('writes one whole HTTP/1.1 answer with the error body, then closes', () => {
    const { socket, written, destroy } = fakeSocket();
    writeClientError(parseError('HPE_INVALID_URL'), socket);
    expect(written).toHaveLength(1);
    const [head, body] = written[0].split('\r\n\r\n');
    expect(head.split('\r\n')).toEqual([
      'HTTP/1.1 400 Bad Request',
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body)}`,
      'cache-control: no-store',
      'x-content-type-options: nosniff',
      'connection: close',
    ]);
    expect(JSON.parse(body)).toEqual({
      error: { code: 'bad_request', message: 'the request URL holds bytes HTTP does not allow' },
    });
    expect(destroy).toHaveBeenCalledTimes(1);
  });

  it('adds the headers its renderer asks for', () => {
    const { socket, written } = fakeSocket();
    clientErrorHandler(() => ({
      status: 400,
      contentType: 'application/xml',
      body: '<Error/>',
      headers: { 'x-amz-request-id': 'ABC' },
    }))(parseError('HPE_INVALID_URL'), socket);
    expect(written[0]).toContain('\r\nx-amz-request-id: ABC\r\nconnection: close\r\n\r\n<Error/>');
  });

  it.each([
    ['a reset connection', parseError('ECONNRESET'), {}],
    ['a destroyed socket', parseError('HPE_INVALID_URL'), { destroyed: true }],
    ['a socket no longer writable', parseError('HPE_INVALID_URL'), { writable: false }],
    ['a socket still sending a response', parseError('HPE_INVALID_URL'), { inFlight: true }],
  ])('writes nothing on %s, and closes it', (_what, error, state) => {
    const { socket, written, destroy } = fakeSocket(state);
    const render = jest.fn();
    clientErrorHandler(render)(error, socket);
    expect(written).toEqual([]);
    expect(render).not.toHaveBeenCalled();
    expect(destroy).toHaveBeenCalledTimes(1);
  });
});
