import type { Connection } from '@solana/web3.js';

/** The part of rpc-websockets' client that web3.js 1.x keeps in `Connection._rpcWebSocket`. */
interface ReconnectingSocket {
  reconnect_timer_id?: NodeJS.Timeout;
  setAutoReconnect(reconnect: boolean): void;
  close(): void;
}

/**
 * Closes a Connection's WebSocket for good. web3.js 1.x builds it with rpc-websockets and
 * `max_reconnects: Infinity` and has no public close: a socket still open when its node stops
 * retries every second for ever, which keeps a process (or Jest) from exiting. Safe to call on a
 * Connection that never opened its socket, and more than once.
 */
export function closeConnectionSocket(connection: Connection): void {
  const socket = (connection as unknown as { _rpcWebSocket?: ReconnectingSocket })._rpcWebSocket;
  if (!socket) return;
  socket.setAutoReconnect(false);
  clearTimeout(socket.reconnect_timer_id);
  try {
    socket.close();
  } catch {
    // already closed, or closed while connecting: nothing left to stop
  }
}
