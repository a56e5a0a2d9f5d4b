import type { IncomingMessage, Server } from 'node:http';
import type { ServerConfig } from '../config/server.config';

/**
 * Timeouts every listener of the gateway sets, so a client that stalls cannot hold a socket (and
 * the temporary file its upload writes) for ever. Node enforces the head and whole-request limits
 * itself (checked every 30 s); the body idle limit is ours, see `watchBodyIdle`.
 */
export function applyListenerTimeouts(server: Server, config: ServerConfig): void {
  server.requestTimeout = config.request_timeout_ms;
  // Node requires headersTimeout <= requestTimeout when both are set.
  server.headersTimeout =
    config.request_timeout_ms > 0
      ? Math.min(config.headers_timeout_ms, config.request_timeout_ms)
      : config.headers_timeout_ms;
  server.keepAliveTimeout = config.keep_alive_timeout_ms;
}

/**
 * Arms the socket's inactivity timer for as long as the request body is being received: a body
 * that sends nothing for `idleMs` has its connection destroyed (the route's stream then fails as
 * for a client that hung up, and removes what it spooled), however young the request is. Any byte
 * received restarts the timer (Node refreshes it on every read), so a slow but steady body is
 * never cut. Once the body has ended the socket goes back to `afterBodyMs` (0: none), so the
 * time a handler then spends (a chain write) is not counted as client idleness.
 */
export function watchBodyIdle(req: IncomingMessage, idleMs: number, afterBodyMs = 0): void {
  if (req.complete || !hasBody(req)) return;
  const socket = req.socket;
  socket.setTimeout(idleMs);
  const disarm = (): void => {
    req.off('end', disarm);
    req.off('close', disarm);
    if (!socket.destroyed) socket.setTimeout(afterBodyMs);
  };
  req.once('end', disarm);
  req.once('close', disarm);
}

function hasBody(req: IncomingMessage): boolean {
  const headers = req.headers;
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}
