import bs58 from 'bs58';
import { IncomingMessage, ServerResponse } from 'node:http';
import { listenLoopback } from './loopback-server';

/** What the proxy does with one JSON-RPC request. */
export type ProxyDecision =
  /** Pass it to the node and its answer back. */
  | 'forward'
  /** Answer a sendTransaction with its signature as if taken, and never pass it on (a lost transaction). */
  | 'drop'
  /** Never answer (a request lost with its connection). */
  | 'hold'
  /** Drop the connection without an answer (a node or proxy that went away mid-request). */
  | 'reset'
  /** Answer JSON-RPC "Method not found" (-32601), as a node without the method does. */
  | 'unknown-method';

export interface RpcRequest {
  method: string;
  params: unknown[];
}

export interface RpcFaultProxy {
  url: string;
  /** Every request seen, in order, with what was done with it. */
  seen: (RpcRequest & { decision: ProxyDecision })[];
  close(): Promise<void>;
}

/**
 * A JSON-RPC proxy in front of a node that misbehaves on purpose (rpc-recorder.ts only records): `decide` sees
 * each request and forwards, drops or holds it. Tests use it to lose transactions and to stop a
 * command at an exact point.
 */
export async function startRpcFaultProxy(
  target: string,
  decide: (request: RpcRequest) => ProxyDecision,
): Promise<RpcFaultProxy> {
  const seen: RpcFaultProxy['seen'] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const parsed = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] };
    const request = { method: parsed.method, params: parsed.params ?? [] };
    const decision = decide(request);
    seen.push({ ...request, decision });
    if (decision === 'hold') return;
    if (decision === 'reset') {
      res.socket?.destroy();
      return;
    }
    if (decision === 'unknown-method') {
      res.setHeader('content-type', 'application/json');
      const error = { code: -32601, message: 'Method not found' };
      res.end(JSON.stringify({ jsonrpc: '2.0', id: parsed.id, error }));
      return;
    }
    if (decision === 'drop' && parsed.method === 'sendTransaction') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: parsed.id, result: firstSignature(request) }));
      return;
    }
    const upstream = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    res.statusCode = upstream.status;
    res.setHeader('content-type', 'application/json');
    res.end(Buffer.from(await upstream.arrayBuffer()));
  };
  const server = await listenLoopback((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  return { url: server.url, seen, close: server.close };
}

/** The transaction's first signature (its id): after the compact-u16 signature count. */
function firstSignature(request: RpcRequest): string {
  const wire = Buffer.from(String(request.params[0]), 'base64');
  return bs58.encode(wire.subarray(1, 65));
}
