import { IncomingMessage } from 'node:http';
import { listenLoopback } from './loopback-server';

/**
 * A JSON-RPC proxy on loopback that forwards every HTTP request to a Solana RPC node and
 * remembers the methods called (batches too), so a test can say which requests a gateway
 * makes. HTTP only: a gateway that only reads never opens the WebSocket.
 */
export interface RpcRecorder {
  url: string;
  /** Methods called since the start (or the last `reset`), in order. */
  methods(): string[];
  reset(): void;
  close(): Promise<void>;
}

export async function startRpcRecorder(upstream: string): Promise<RpcRecorder> {
  let methods: string[] = [];
  const server = await listenLoopback((req, res) => {
    void forward(req).then(
      ({ status, body }) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body);
      },
      (err: unknown) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(err));
      },
    );
  });

  async function forward(req: IncomingMessage): Promise<{ status: number; body: Buffer }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    try {
      const parsed = JSON.parse(body.toString('utf8')) as
        { method?: string } | { method?: string }[];
      for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
        methods.push(call.method ?? '?');
      }
    } catch {
      methods.push('?');
    }
    const res = await fetch(upstream, {
      method: req.method,
      headers: { 'content-type': 'application/json' },
      body: req.method === 'POST' ? body : undefined,
    });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  }

  return {
    url: server.url,
    methods: () => [...methods],
    reset: () => {
      methods = [];
    },
    close: server.close,
  };
}
