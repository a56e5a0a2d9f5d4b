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
  closing.add(socket);
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

/** Sockets whose answer says `Connection: close` after a refused body: no new request. */
const closing = new WeakSet<Socket>();

/**
 * Whether a request arrived on a connection that closes after a refused body: a request
 * pipelined behind it. The listener must drop it unanswered and unexecuted (the client was told
 * the connection closes, and sends it again on a new one).
 */
export function arrivedWhileLingering(req: IncomingMessage): boolean {
  return closing.has(req.socket);
}

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Per connection: the answer the next pipelined request waits for. */
const answering = new WeakMap<Socket, Promise<void>>();

/**
 * A listener's handler that runs pipelined requests one at a time, each once the answer before
 * it has been sent, and drops those behind a refused body (`arrivedWhileLingering`).
 *
 * Node 20 stops parsing a connection while a request body lies unread, so a request pipelined
 * behind a refused body arrives only once the lingering close reads it out. Node 22 and 24
 * parse ahead: the pipelined request arrives while the refused one is still being decided,
 * before anything says the connection closes, and would be executed. Waiting for the answer
 * before it gives the same outcome on both: dropped when that answer closed the connection,
 * run otherwise (HTTP/1.1 answers pipelined requests in order anyway).
 */
export function answerInOrder(handler: RequestHandler): RequestHandler {
  return (req, res) => {
    const socket = req.socket;
    const before = answering.get(socket);
    const answered = new Promise<void>((resolve) => res.once('close', () => resolve()));
    answering.set(socket, answered);
    const run = () => {
      // Unanswered: the connection closes after the answer before it (its own close ends it).
      if (arrivedWhileLingering(req) || socket.destroyed) return;
      handler(req, res);
    };
    if (before) void before.then(run);
    else run();
  };
}

function linger(req: IncomingMessage, socket: Socket, limits: LingerLimits): void {
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
