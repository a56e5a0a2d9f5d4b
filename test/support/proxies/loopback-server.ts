import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/** An HTTP server of a test on a free loopback port, closed with its open connections. */
export interface LoopbackServer {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/**
 * The one way the harness's in-process servers (proxies, fake origins) listen: port 0 of
 * 127.0.0.1, and a `close` that ends keep-alive connections instead of waiting for them.
 */
export async function listenLoopback(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<LoopbackServer> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
