import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { signWithHeader } from './s3-signing';

/** Hand-made requests for what SDKs never send: raw sockets, odd headers, dropped connections. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request signed by the SDK's signer and sent with node:http (so Host can be anything). */
export async function signedRequest(
  port: number,
  options: {
    method: string;
    path: string;
    host?: string;
    headers?: Record<string, string>;
    body?: Buffer;
    secret?: string;
    accessKeyId?: string;
  },
): Promise<RawResponse> {
  const host = options.host ?? `127.0.0.1:${port}`;
  const q = options.path.indexOf('?');
  const query = q < 0 ? {} : Object.fromEntries(new URLSearchParams(options.path.slice(q + 1)));
  const signed = await signWithHeader({
    method: options.method,
    path: q < 0 ? options.path : options.path.slice(0, q),
    query,
    host,
    headers: options.headers,
    date: new Date(),
    secret: options.secret,
    accessKeyId: options.accessKeyId,
  });
  const headers: Record<string, string> = {};
  for (let i = 0; i < signed.rawHeaders.length; i += 2)
    headers[signed.rawHeaders[i]] = signed.rawHeaders[i + 1];
  const path = signed.rawQuery ? `${signed.rawPath}?${signed.rawQuery}` : signed.rawPath;
  return send(port, options.method, path, headers, options.body);
}

export function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let answered: RawResponse | undefined;
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      answered = { status: res.statusCode ?? 0, headers: res.headers, body: text };
      res.setEncoding('utf8');
      res.on('data', (d: string) => (answered!.body = text += d));
      res.on('end', () => resolve(answered!));
      // Closed while the body still arrived (see below): what came is the answer.
      res.on('error', () => resolve(answered!));
      res.on('aborted', () => resolve(answered!));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A gateway that refuses a body it did not read answers, then closes the connection
      // (src/s3/s3-server.ts): writing the rest of a large body then fails with EPIPE or
      // ECONNRESET, as it does for any HTTP client. The answer, once received, is the outcome.
      const closedAfterAnswer = error.code === 'EPIPE' || error.code === 'ECONNRESET';
      if (closedAfterAnswer && answered) return resolve(answered);
      reject(error);
    });
    req.end(body);
  });
}

/** Writes raw bytes on a socket, then either closes it abruptly or reads the reply. */
export function rawExchange(port: number, bytes: Buffer, dropAfterWrite: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(bytes, () => {
        if (dropAfterWrite) {
          socket.destroy();
          resolve('');
        }
      });
    });
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('end', () => resolve(text));
    socket.on('close', () => resolve(text));
    socket.on('error', (e) => (dropAfterWrite ? resolve('') : reject(e)));
  });
}

/**
 * Writes a whole request on a raw socket and reads until the server closes: whether every byte
 * was accepted (a server that closes on unread bytes resets the connection, and the write fails)
 * and what came back.
 */
export function writeAllThenRead(
  port: number,
  bytes: Buffer,
): Promise<{ writeError: string | undefined; response: string }> {
  return new Promise((resolve) => {
    let writeError: string | undefined;
    let text = '';
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(bytes, (error) => {
        if (error) writeError = (error as NodeJS.ErrnoException).code ?? error.message;
      });
    });
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) => (writeError ??= error.code ?? 'error'));
    socket.on('close', () => resolve({ writeError, response: text }));
  });
}

/** The request head (request line and headers) of a signed request, ready for a raw socket. */
export function requestHead(method: string, path: string, rawHeaders: string[]): string {
  let head = `${method} ${path} HTTP/1.1\r\n`;
  for (let i = 0; i < rawHeaders.length; i += 2)
    head += `${rawHeaders[i]}: ${rawHeaders[i + 1]}\r\n`;
  return `${head}\r\n`;
}

/**
 * Sends a head with `Expect: 100-continue` and waits: the body goes out only if the server
 * answers 100 Continue. Returns what the server said before and after.
 */
export function expectContinue(
  port: number,
  head: string,
  body: Buffer,
): Promise<{ interim: boolean; response: string }> {
  return new Promise((resolve, reject) => {
    let text = '';
    let interim = false;
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (!interim && text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        interim = true;
        text = text.slice('HTTP/1.1 100 Continue\r\n\r\n'.length);
        socket.write(body);
      }
    });
    socket.on('close', () => resolve({ interim, response: text }));
    socket.on('error', reject);
  });
}

/** What a server answered on a raw connection, read until it closed. */
export interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/**
 * Sends a request whose body goes out slowly: the head, then `body` in `chunks` equal parts,
 * one every `intervalMs` (a slow uploader), reading whatever comes back until the server closes
 * the connection. `started` resolves once the head and the first part are written (rejects when
 * the connection is refused); `answer` resolves with what was read (status 0 and an empty head
 * when nothing was), also when the server cut the connection before the body ended.
 */
export function trickleRequest(
  port: number,
  head: string,
  body: Buffer,
  options: { chunks: number; intervalMs: number },
): { started: Promise<void>; answer: Promise<RawAnswer> } {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  const part = Math.ceil(body.length / options.chunks);
  let timer: NodeJS.Timeout | undefined;
  const started = new Promise<void>((resolve, reject) => {
    // Refused: `started` fails; later errors (the server cut the connection) end `answer`.
    socket.on('error', (error) => reject(error));
    socket.once('connect', () => {
      socket.write(head);
      let sent = 0;
      const next = (): void => {
        if (socket.destroyed || sent >= body.length) return;
        socket.write(body.subarray(sent, (sent += part)));
        timer = setTimeout(next, options.intervalMs);
      };
      next();
      resolve();
    });
  });
  const answer = new Promise<RawAnswer>((resolve) => {
    socket.on('close', () => {
      clearTimeout(timer);
      const split = text.indexOf('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
        head: split < 0 ? text : text.slice(0, split),
        body: split < 0 ? '' : text.slice(split + 4),
      });
    });
  });
  return { started, answer };
}
