import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long, and how many bytes of, a refused body are read and thrown away after the answer. */
export interface LingerLimits {
  ms: number;
  bytes: number;
}

/** nginx's lingering_time is 30 s; a refused upload here gets 5 s and 64 MiB. */
export const LINGER: LingerLimits = { ms: 5_000, bytes: 64 * 1024 * 1024 };

/**
 * Closes a connection whose request body was refused unread, the way nginx's `lingering_close`
 * does: the answer goes out with `Connection: close`, the write side is shut (FIN), and the rest
 * of the body is read and discarded for up to `limits` (time and bytes) before the socket closes.
 *
 * Closing at once is what loses answers: a socket closed with unread bytes in its receive
 * buffer is reset (RST), and a client still writing its body then fails with EPIPE or
 * ECONNRESET, often before it has read the 503 or 413 already on its socket. Reading on lets
 * the client finish its write and see the answer; the caps keep a client that never stops
 * sending from holding the connection.
 *
 * Call it before the answer is written; the caller sets `Connection: close`. Node closes such a
 * socket with `destroySoon()` (end, then destroy once written), which is replaced on this one
 * socket by the lingering close.
 */
export function lingerAfterAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  limits: LingerLimits = LINGER,
): void {
  const socket = req.socket as Socket | null;
  if (!socket || socket.destroyed) return;
  const closeSoon = socket.destroySoon.bind(socket);
  socket.destroySoon = () => {
    if (req.complete || req.destroyed) closeSoon();
    else linger(req, socket, limits);
  };
  // The answer may never be written (the client went away first): nothing to linger for.
  res.once('close', () => {
    if (!res.writableFinished) socket.destroy();
  });
}

/** How often a lingering socket's caps are checked. */
const CHECK_MS = 20;

/** Sockets reading out a refused body: they announced `Connection: close`, so no new request. */
const lingering = new WeakSet<Socket>();

/**
 * Whether a request arrived on a connection that is lingering: a request pipelined behind the
 * refused body. The listener must drop it unanswered (the client was told the connection closes).
 */
export function arrivedWhileLingering(req: IncomingMessage): boolean {
  return lingering.has(req.socket);
}

function linger(req: IncomingMessage, socket: Socket, limits: LingerLimits): void {
  lingering.add(socket);
  // Bytes are counted on the socket: a request nobody consumed is discarded by Node's parser
  // without ever emitting 'data' (IncomingMessage._dump), so only the socket sees them.
  const startedAt = Date.now();
  const readBefore = socket.bytesRead;
  const close = () => socket.destroy();
  const check = setInterval(() => {
    const over =
      Date.now() - startedAt >= limits.ms || socket.bytesRead - readBefore > limits.bytes;
    if (over) close();
  }, CHECK_MS);
  check.unref();
  socket.once('close', () => clearInterval(check));
  req.unpipe();
  req.removeAllListeners('data');
  req.once('end', close);
  req.once('error', close);
  req.resume();
  socket.end();
}
