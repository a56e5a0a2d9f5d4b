import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { failure, JsonRpcDispatcher } from './json-rpc-dispatcher';
import { toJsonText } from './json-text';
import { RpcError } from './rpc-error';

/** Request bodies above this are refused with 413 before they are parsed. */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;

/**
 * The JSON-RPC endpoint over HTTP: POST a request (or a batch) to any path; `GET /health` answers
 * `ok` as Solana's does. Malformed input gets JSON-RPC errors, oversized bodies 413, never a crash.
 */
export class JsonRpcHttpServer {
  private readonly server: Server;

  constructor(private readonly dispatcher: JsonRpcDispatcher) {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 65_000;
    // A client that stalls mid-request must not hold a socket and a buffered body for ever.
    this.server.headersTimeout = 15_000;
    this.server.requestTimeout = 30_000;
  }

  async listen(port: number, host: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    if (!this.server.listening) return;
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === 'GET' && req.url === '/health') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    if (req.method !== 'POST') {
      res
        .writeHead(405, { allow: 'POST', 'content-type': 'text/plain' })
        .end('Used HTTP Method is not allowed. POST or OPTIONS is required');
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_REQUEST_BODY_BYTES) return this.tooLarge(req, res);
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > MAX_REQUEST_BODY_BYTES) {
        refused = true;
        this.tooLarge(req, res);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!refused) this.respond(res, Buffer.concat(chunks));
    });
    req.on('error', () => res.destroy());
  }

  private respond(res: ServerResponse, body: Buffer): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return this.send(res, 200, toJsonText(failure(null, RpcError.parse())));
    }
    const reply = this.dispatcher.dispatch(parsed);
    if (reply === null) {
      res.writeHead(200, { 'content-length': 0 }).end();
      return;
    }
    this.send(res, 200, toJsonText(reply));
  }

  private tooLarge(req: IncomingMessage, res: ServerResponse): void {
    const body = toJsonText(
      failure(
        null,
        RpcError.invalidRequest(`request body exceeds ${MAX_REQUEST_BODY_BYTES} bytes`),
      ),
    );
    res.writeHead(413, { 'content-type': 'application/json', connection: 'close' }).end(body);
    req.resume();
  }

  private send(res: ServerResponse, status: number, text: string): void {
    res
      .writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      })
      .end(text);
  }
}
