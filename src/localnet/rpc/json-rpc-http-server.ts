import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { capConnectionsPerAddress, ConnectionCapOptions } from '../../http/connection-cap';
import { clientAddress } from './client-address';
import { failure, JsonRpcDispatcher } from './json-rpc-dispatcher';
import { toJsonText } from './json-text';
import { RpcError } from './rpc-error';

/**
 * A client that trickles its headers or body does not hold a socket for ever. Fixed, not
 * configurable; docs/operator.md ("Timeouts") states them.
 */
export const RPC_HEADERS_TIMEOUT_MS = 20_000;
export const RPC_REQUEST_TIMEOUT_MS = 60_000;

/** One answered request: its status, the seconds it took, the bytes sent (gateway metrics). */
export type RpcAnswerObserver = (status: number, seconds: number, bytes: number) => void;

export interface JsonRpcHttpServerOptions {
  /** Bodies above this are refused with 413 before they are parsed. */
  maxRequestBodyBytes: number;
  /** Anything that escaped the dispatcher (it should not): logged, the request answered 500. */
  onInternalError: (method: string, err: unknown) => void;
  /** Open connections per client address (`localnet.rpc_max_connections_per_address`). */
  connectionCap: ConnectionCapOptions;
  /**
   * Milliseconds an answer may take to reach its client once it is written. Node's timeouts
   * cover the request only: without this, a client that never reads holds its answer's bytes
   * (and their share of the in-flight budget) for as long as it keeps the connection open.
   */
  responseTimeoutMs: number;
  /** Told of each answer once its response closes. */
  onAnswered?: RpcAnswerObserver;
}

/**
 * The JSON-RPC endpoint over HTTP: POST a request (or a batch) to any path; `GET /health` answers
 * `ok` as Solana's does. Malformed input gets JSON-RPC errors, oversized bodies 413, a body that
 * is not `application/json` 415 (as agave's jsonrpc server), never a crash.
 */
export class JsonRpcHttpServer {
  private readonly server: Server;

  constructor(
    private readonly dispatcher: JsonRpcDispatcher,
    private readonly options: JsonRpcHttpServerOptions,
  ) {
    const onAnswered = options.onAnswered;
    this.server = createServer((req, res) => {
      if (onAnswered) {
        const start = performance.now();
        const written = req.socket.bytesWritten;
        res.once('close', () =>
          onAnswered(
            res.statusCode,
            (performance.now() - start) / 1000,
            (req.socket?.bytesWritten ?? written) - written,
          ),
        );
      }
      try {
        this.handle(req, res);
      } catch (err) {
        this.failed(res, err);
      }
    });
    this.server.keepAliveTimeout = 65_000;
    this.server.headersTimeout = RPC_HEADERS_TIMEOUT_MS;
    this.server.requestTimeout = RPC_REQUEST_TIMEOUT_MS;
    capConnectionsPerAddress(this.server, options.connectionCap);
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
    if (!isJson(req.headers['content-type'])) {
      res
        .writeHead(415, { 'content-type': 'text/plain', connection: 'close' })
        .end('Supplied content type is not allowed. Content-Type: application/json is required');
      req.resume();
      return;
    }
    const limit = this.options.maxRequestBodyBytes;
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) return this.tooLarge(req, res);
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit) {
        refused = true;
        this.tooLarge(req, res);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (refused) return;
      const ip = clientAddress(req.socket.remoteAddress);
      this.respond(res, Buffer.concat(chunks), ip).catch((err: unknown) => this.failed(res, err));
    });
    req.on('error', () => res.destroy());
  }

  private async respond(res: ServerResponse, body: Buffer, clientIp: string): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return this.send(res, 200, toJsonText(failure(null, RpcError.parse())));
    }
    const reply = await this.dispatcher.dispatch(parsed, clientIp);
    if (reply === null) {
      res.writeHead(200, { 'content-length': 0 }).end();
      return;
    }
    // The bytes stay counted until the client has them, is gone or runs out of time: a client
    // that does not read holds its share of the pool, and not for longer than the deadline.
    if (res.destroyed || res.closed) {
      this.dispatcher.release(reply.held);
      return;
    }
    const deadline = setTimeout(() => res.destroy(), this.options.responseTimeoutMs);
    deadline.unref();
    res.once('close', () => {
      clearTimeout(deadline);
      this.dispatcher.release(reply.held);
    });
    this.send(res, 200, reply.text);
  }

  private failed(res: ServerResponse, err: unknown): void {
    this.options.onInternalError('http', err);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    this.send(res, 500, toJsonText(failure(null, RpcError.internal())));
  }

  private tooLarge(req: IncomingMessage, res: ServerResponse): void {
    const body = toJsonText(
      failure(
        null,
        RpcError.invalidRequest(`request body exceeds ${this.options.maxRequestBodyBytes} bytes`),
      ),
    );
    res.writeHead(413, { 'content-type': 'application/json', connection: 'close' }).end(body);
    req.resume();
  }

  private send(res: ServerResponse, status: number, text: string): void {
    if (res.destroyed) return;
    res
      .writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      })
      .end(text);
  }
}

/** `application/json`, with or without parameters (`; charset=utf-8`), any case. */
function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  return contentType.split(';', 1)[0].trim().toLowerCase() === 'application/json';
}
