import { JsonRpcDispatcher } from './json-rpc-dispatcher';
import { ResponsePool } from './response-pool';
import { RpcHandlers } from './rpc-handler';

const LIMITS = { maxBatchLength: 5, maxResponseBytes: 1000, maxBatchResponseBytes: 2500 };

function newDispatcher(handlers: RpcHandlers, limits = LIMITS) {
  const internal: Array<{ method: string; err: unknown }> = [];
  const sut = new JsonRpcDispatcher(
    handlers,
    (method, err) => internal.push({ method, err }),
    limits,
  );
  return { sut, internal };
}

const call = (method: string, id: number, params: unknown[] = []) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

async function answer(sut: JsonRpcDispatcher, body: unknown): Promise<unknown> {
  const reply = await sut.dispatch(body, '127.0.0.1');
  if (reply === null) return null;
  sut.release(reply.held);
  return JSON.parse(reply.text);
}

describe('JsonRpcDispatcher limits', () => {
  it('refuses a batch longer than the limit with one -32600 error, running nothing', async () => {
    let ran = 0;
    const { sut } = newDispatcher({ getSlot: () => ++ran });
    const batch = Array.from({ length: 6 }, (_, i) => call('getSlot', i));
    expect(await answer(sut, batch)).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32600,
        message: 'batch of 6 requests exceeds the limit of 5; send smaller batches',
      },
      id: null,
    });
    expect(ran).toBe(0);
    expect(await answer(sut, batch.slice(0, 5))).toHaveLength(5);
  });

  it('answers a handler that throws anything with -32603 for its id, logs it, and serves the rest', async () => {
    const { sut, internal } = newDispatcher({
      boom: () => {
        throw new RangeError('Invalid string length');
      },
      getSlot: () => 7,
    });
    expect(await answer(sut, [call('boom', 1), call('getSlot', 2)])).toEqual([
      { jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: 1 },
      { jsonrpc: '2.0', result: 7, id: 2 },
    ]);
    expect(internal).toHaveLength(1);
    expect(internal[0].method).toBe('boom');
  });

  it('refuses one response past maxResponseBytes, not its neighbours', async () => {
    const { sut } = newDispatcher({ big: () => 'x'.repeat(2000), small: () => 'ok' });
    const [big, small] = (await answer(sut, [call('big', 1), call('small', 2)])) as Array<{
      error?: { code: number; message: string };
      result?: unknown;
    }>;
    expect(big.error?.code).toBe(-32600);
    expect(big.error?.message).toMatch(/^response exceeds the limit of 1000 bytes;/);
    expect(small.result).toBe('ok');
  });

  it('stops a batch at maxBatchResponseBytes across its entries', async () => {
    const { sut } = newDispatcher({ part: () => 'x'.repeat(900) });
    const replies = (await answer(
      sut,
      [1, 2, 3, 4].map((id) => call('part', id)),
    )) as Array<{
      error?: { code: number };
      result?: string;
    }>;
    expect(replies.slice(0, 2).every((r) => r.result?.length === 900)).toBe(true);
    expect(replies.slice(2).map((r) => r.error?.code)).toEqual([-32600, -32600]);
  });

  it('lets a handler refuse before it builds a big value (budget charged first)', async () => {
    let built = false;
    const { sut } = newDispatcher({
      huge: (_p, { budget }) => {
        budget.charge(14 * 1024 * 1024);
        built = true;
        return 'never';
      },
    });
    const reply = (await answer(sut, call('huge', 1))) as { error: { code: number } };
    expect(reply.error.code).toBe(-32600);
    expect(built).toBe(false);
  });

  it('gives the event loop back during a long batch', async () => {
    const busy = () => {
      const until = performance.now() + 4;
      while (performance.now() < until);
      return 1;
    };
    const { sut } = newDispatcher(
      { busy },
      { maxBatchLength: 100, maxResponseBytes: 1000, maxBatchResponseBytes: 100_000 },
    );
    const order: string[] = [];
    setImmediate(() => order.push('other work'));
    const done = sut
      .dispatch(
        Array.from({ length: 30 }, (_, i) => call('busy', i)),
        '127.0.0.1',
      )
      .then(() => order.push('batch'));
    await done;
    expect(order).toEqual(['other work', 'batch']);
  });

  it('answers "busy" for large responses while the pool is held by unwritten ones, small ones still go', async () => {
    const KiB = 1024;
    const pool = new ResponsePool(256 * KiB);
    const sut = new JsonRpcDispatcher(
      { large: () => 'x'.repeat(150 * KiB), small: () => 'ok' },
      () => undefined,
      { maxBatchLength: 10, maxResponseBytes: 200 * KiB, maxBatchResponseBytes: 400 * KiB },
      pool,
    );
    const first = await sut.dispatch(call('large', 1), '127.0.0.1');
    expect(first?.held).toBeGreaterThan(150 * KiB);
    const second = await sut.dispatch(call('large', 2), '127.0.0.1');
    expect(JSON.parse(second?.text ?? '')).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32603,
        message: 'the node is busy sending other large responses; retry later or ask for less',
      },
      id: 2,
    });
    sut.release(second?.held ?? 0);
    expect(JSON.parse((await sut.dispatch(call('small', 3), '127.0.0.1'))?.text ?? '')).toEqual({
      jsonrpc: '2.0',
      result: 'ok',
      id: 3,
    });
    sut.release(first?.held ?? 0);
    const third = await sut.dispatch(call('large', 4), '127.0.0.1');
    expect((JSON.parse(third?.text ?? '') as { result: string }).result).toHaveLength(150 * KiB);
  });
});
