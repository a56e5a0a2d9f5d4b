import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Connection } from '@solana/web3.js';
import { ChainRpc } from './chain-rpc';
import { RpcEndpoints } from './rpc-endpoints';
import { normalizeRpcUrls } from '../config/chain.config';
import { validateChainConfig } from '../config/config-loader';

const ok = (body: string) => new Response(body, { status: 200 });

function newTestEndpoints(answers: Record<string, () => Response>) {
  let now = 1000;
  const asked: string[] = [];
  const sut = new RpcEndpoints(
    Object.keys(answers),
    () => now,
    (input) => {
      const url = input as string;
      asked.push(url);
      return Promise.resolve().then(() => answers[url]());
    },
  );
  return { sut, asked, advance: (ms: number) => (now += ms) };
}

const refused = (): Response => {
  throw new TypeError('fetch failed');
};

describe('RpcEndpoints', () => {
  it('sends to the next endpoint when the first cannot be reached, and asks it last for a while', async () => {
    const { sut, asked, advance } = newTestEndpoints({ a: refused, b: () => ok('b') });
    expect(await (await sut.fetch({}, 0)).text()).toBe('b');
    expect(asked).toEqual(['a', 'b']);
    expect(sut.active()).toBe(1);
    await sut.fetch({}, 0);
    expect(asked).toEqual(['a', 'b', 'b']);
    advance(30_001);
    expect(sut.active()).toBe(0);
  });

  it('fails over on 502/503/504 but takes any other answer as the answer', async () => {
    const { sut } = newTestEndpoints({
      a: () => new Response('busy', { status: 503 }),
      b: () => new Response('bad request', { status: 400 }),
    });
    const res = await sut.fetch({}, 0);
    expect(res.status).toBe(400);
  });

  it('rejects with the last failure when no endpoint answers', async () => {
    const { sut } = newTestEndpoints({ a: refused, b: refused });
    await expect(sut.fetch({}, 0)).rejects.toThrow('fetch failed');
  });

  it('a ChainRpc with a dead first endpoint reads through the second (real HTTP)', async () => {
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const { id } = JSON.parse(body) as { id: number };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id, result: 4242 }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const live = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dead = await closedPort();
    const rpc = ChainRpc.fromConfig(validateChainConfig({ rpc_url: `${dead},${live}` }));
    try {
      expect(rpc.urls).toEqual([dead, live]);
      expect(await rpc.call((c: Connection) => c.getSlot())).toBe(4242);
      expect(rpc.url).toBe(live);
    } finally {
      rpc.close();
      server.close();
    }
  });
});

describe('normalizeRpcUrls', () => {
  it('takes a list, comma-separated text and rpc_urls, first endpoint in rpc_url', () => {
    const a = { rpc_url: ['http://a', 'http://b'] } as Record<string, unknown>;
    normalizeRpcUrls(a);
    expect(a).toEqual({ rpc_url: 'http://a', rpc_urls: ['http://a', 'http://b'] });
    const b = { rpc_url: 'http://a, http://b', rpc_urls: ['http://b', 'http://c'] } as Record<
      string,
      unknown
    >;
    normalizeRpcUrls(b);
    expect(b).toEqual({ rpc_url: 'http://a', rpc_urls: ['http://a', 'http://b', 'http://c'] });
    const c = { rpc_urls: ['http://c'] } as Record<string, unknown>;
    normalizeRpcUrls(c);
    expect(c.rpc_url).toBe('http://c');
    const d = {} as Record<string, unknown>;
    normalizeRpcUrls(d);
    expect(d).toEqual({});
  });

  it('refuses a list that is not strings, naming the key', () => {
    expect(() => validateChainConfig({ rpc_urls: [5] })).toThrow(/chain\.rpc_url/);
  });
});

async function closedPort(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}
