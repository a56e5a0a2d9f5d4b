import { RpcError } from './rpc-error';
import { RpcHandlers } from './rpc-handler';
import { positional } from './rpc-params';

type Id = string | number | null;

export interface RpcResponse {
  jsonrpc: '2.0';
  id: Id;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * JSON-RPC 2.0 over parsed request bodies: single requests, batches, notifications (no `id`:
 * no answer), and Solana's error codes for each way a request can be wrong.
 */
export class JsonRpcDispatcher {
  constructor(
    private readonly handlers: RpcHandlers,
    private readonly onInternalError: (method: string, err: unknown) => void,
  ) {}

  /** The response body for a request body (already parsed JSON), or null when nothing is owed. */
  dispatch(body: unknown): RpcResponse | RpcResponse[] | null {
    if (Array.isArray(body)) {
      if (body.length === 0) return failure(null, RpcError.invalidRequest());
      const responses = body
        .map((request) => this.one(request))
        .filter((r): r is RpcResponse => r !== null);
      return responses.length > 0 ? responses : null;
    }
    return this.one(body);
  }

  private one(request: unknown): RpcResponse | null {
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      return failure(null, RpcError.invalidRequest());
    }
    const r = request as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown };
    const id = validId(r.id);
    if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || id === undefined) {
      return failure(id ?? null, RpcError.invalidRequest());
    }
    const notification = !('id' in r);
    const handler = Object.prototype.hasOwnProperty.call(this.handlers, r.method)
      ? this.handlers[r.method]
      : undefined;
    let response: RpcResponse;
    if (!handler) {
      response = failure(id, RpcError.methodNotFound());
    } else {
      try {
        response = { jsonrpc: '2.0', result: handler(positional(r.params)), id };
      } catch (err) {
        if (!(err instanceof RpcError)) this.onInternalError(r.method, err);
        response = failure(id, err instanceof RpcError ? err : RpcError.internal());
      }
    }
    return notification ? null : response;
  }
}

function validId(id: unknown): Id | undefined {
  if (id === undefined || id === null) return null;
  if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) return id;
  return undefined;
}

export function failure(id: Id, err: RpcError): RpcResponse {
  const error: RpcResponse['error'] = { code: err.code, message: err.message };
  if (err.data !== undefined) error.data = err.data;
  return { jsonrpc: '2.0', error, id };
}
