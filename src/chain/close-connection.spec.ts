import { Connection } from '@solana/web3.js';
import { closeConnectionSocket } from './close-connection';
import { freePort } from '../../test/support/processes/free-port';

interface InternalSocket {
  connect(): void;
  on(event: 'error', listener: () => void): void;
}

describe('closeConnectionSocket', () => {
  it('stops the WebSocket retrying a node that is gone', async () => {
    const silenced = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const port = await freePort();
      const connection = new Connection(`http://127.0.0.1:${port}`, {
        wsEndpoint: `ws://127.0.0.1:${port}`,
      });
      const socket = (connection as unknown as { _rpcWebSocket: InternalSocket })._rpcWebSocket;
      let failures = 0;
      const failed = new Promise<void>((resolve) =>
        socket.on('error', () => {
          failures++;
          resolve();
        }),
      );
      socket.connect();
      await failed; // refused: left alone, it would try again every second
      closeConnectionSocket(connection);
      closeConnectionSocket(connection); // twice is fine
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(failures).toBe(1);
    } finally {
      silenced.mockRestore();
    }
  });
});
