import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { toJsonText } from './json-text';
import { ResponseBudget, responseTooLarge } from './response-budget';
import { nodeBusy, ResponsePool } from './response-pool';
import { RpcError } from './rpc-error';
import { RpcHandlers } from './rpc-handler';
import { RpcLimits } from './rpc-limits';
import { positional } from './rpc-params';

type Id = string | number | null;

export interface RpcResponse {
  jsonrpc: '2.0';
  id: Id;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export type DispatchLimits = Pick<
  RpcLimits,
  'maxBatchLength' | 'maxResponseBytes' | 'maxBatchResponseBytes'
>;

/** A response's text and the bytes it holds in the pool until it has been written. */
export interface DispatchReply {
  text: string;
  held: number;
}

/** A batch gives the event loop back after this long, so one request cannot hold it. */
const BATCH_SLICE_MS = 10;

/**
 * JSON-RPC 2.0 over parsed request bodies: single requests, batches, notifications (no `id`:
 * no answer), and Solana's error codes for each way a request can be wrong. Answers are JSON
 * text sized against the limits before they are joined; whatever a handler throws becomes that
 * request's error (-32603 when it is not an RpcError), never an exception for the caller.
 */
export class JsonRpcDispatcher {
  constructor(
    private readonly handlers: RpcHandlers,
    private readonly onInternalError: (method: string, err: unknown) => void,
    private readonly limits: DispatchLimits,
    private readonly pool: ResponsePool = new ResponsePool(Infinity),
  ) {}

  /**
   * The response for a request body (already parsed JSON), or null when nothing is owed. Its
   * bytes are held in the pool: the caller releases `held` once the text has been written.
   */
  async dispatch(body: unknown, clientIp: string): Promise<DispatchReply | null> {
    if (!Array.isArray(body)) {
      const text = this.one(body, clientIp, this.limits.maxResponseBytes);
      return text === null ? null : this.held(text);
    }
    if (body.length === 0) return this.held(toJsonText(failure(null, RpcError.invalidRequest())));
    if (body.length > this.limits.maxBatchLength) {
      const error = batchTooLong(body.length, this.limits.maxBatchLength);
      return this.held(toJsonText(failure(null, error)));
    }
    const parts: string[] = [];
    let remaining = this.limits.maxBatchResponseBytes;
    let held = 0;
    let sliceStart = performance.now();
    try {
      for (const request of body) {
        if (performance.now() - sliceStart >= BATCH_SLICE_MS) {
          await yieldToEventLoop();
          sliceStart = performance.now();
        }
        const limit = Math.min(this.limits.maxResponseBytes, remaining);
        const part = this.one(request, clientIp, limit);
        if (part === null) continue;
        parts.push(part);
        const bytes = Buffer.byteLength(part);
        this.pool.hold(bytes);
        held += bytes;
        remaining = Math.max(0, remaining - bytes);
      }
    } catch (err) {
      this.pool.release(held);
      throw err;
    }
    return parts.length > 0 ? { text: `[${parts.join(',')}]`, held } : this.released(held);
  }

  /** Gives back the pool bytes of a reply once it has been written (or dropped). */
  release(held: number): void {
    this.pool.release(held);
  }

  private held(text: string): DispatchReply {
    const bytes = Buffer.byteLength(text);
    this.pool.hold(bytes);
    return { text, held: bytes };
  }

  private released(held: number): null {
    this.pool.release(held);
    return null;
  }

  private one(request: unknown, clientIp: string, requestLimit: number): string | null {
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      return toJsonText(failure(null, RpcError.invalidRequest()));
    }
    const r = request as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown };
    const id = validId(r.id);
    if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || id === undefined) {
      return toJsonText(failure(id ?? null, RpcError.invalidRequest()));
    }
    const notification = !('id' in r);
    const method = r.method;
    const handler = Object.prototype.hasOwnProperty.call(this.handlers, method)
      ? this.handlers[method]
      : undefined;
    let text: string;
    if (!handler) {
      text = toJsonText(failure(id, RpcError.methodNotFound()));
    } else {
      // Past the pool's share the answer is "busy", not "too large": the request may be fine.
      const busy = this.pool.available < requestLimit;
      const limit = busy ? this.pool.available : requestLimit;
      const exceeded = busy ? nodeBusy : responseTooLarge;
      try {
        const budget = new ResponseBudget(limit, exceeded);
        const result = handler(positional(r.params), { clientIp, budget });
        text = toJsonText({ jsonrpc: '2.0', result, id });
        if (Buffer.byteLength(text) > limit) throw exceeded(limit);
      } catch (err) {
        if (!(err instanceof RpcError)) this.onInternalError(method, err);
        text = toJsonText(failure(id, err instanceof RpcError ? err : RpcError.internal()));
      }
    }
    return notification ? null : text;
  }
}

function batchTooLong(length: number, max: number): RpcError {
  return RpcError.invalidRequest(
    `batch of ${length} requests exceeds the limit of ${max}; send smaller batches`,
  );
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
