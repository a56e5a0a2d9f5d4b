import { Connection } from '@solana/web3.js';
import { createServer } from 'node:net';
import { closeConnectionSocket } from './close-connection';

describe('closeConnectionSocket', () => {
  it('stops the WebSocket retrying a node that is gone', async () => {
    // A port nobody listens on: the socket fails to connect and would retry for ever.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const connection = new Connection(`http://127.0.0.1:${port}`, {
      wsEndpoint: `ws://127.0.0.1:${port}`,
    });
    const socket = (
      connection as unknown as {
        _rpcWebSocket: { reconnect: boolean; connect(): void; on(e: string, f: () => void): void };
      }
    )._rpcWebSocket;
    socket.on('error', () => undefined);
    socket.connect();
    closeConnectionSocket(connection);
    expect(socket.reconnect).toBe(false);
    closeConnectionSocket(connection); // twice is fine
  });
});
