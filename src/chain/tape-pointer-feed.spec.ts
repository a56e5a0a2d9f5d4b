import { PublicKey } from '@solana/web3.js';
import { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { AccountTag, encodeTape, NO_VERSION, TapeRecord } from './account-layouts';
import { pubSubUrlOf, WsTapePointerFeed } from './tape-pointer-feed';
import { atVersion } from './tape-record.spec-support';

const PROGRAM = new PublicKey('Tape111111111111111111111111111111111111111');
const TAPE = new PublicKey(Buffer.alloc(32, 5));

function tapeRecord(version: number): TapeRecord {
  return {
    authority: TAPE,
    delegate: null,
    capacity: 1 << 20,
    activeEpoch: 0,
    expiryEpoch: 10,
    createdAt: 0,
    payer: TAPE,
    ...NO_VERSION,
    ...atVersion(version, Buffer.alloc(32, version)),
  };
}

/** A PubSub server that accepts (or refuses) programSubscribe and records the requests. */
async function pubSub(refuse: boolean) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => server.once('listening', r));
  const requests: { method: string; params: unknown[] }[] = [];
  const notify = (version: number) => {
    const data = encodeTape(tapeRecord(version)).toString('base64');
    for (const client of server.clients) {
      client.send(
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'programNotification',
          params: {
            subscription: 7,
            result: {
              context: { slot: 1 },
              value: { pubkey: TAPE.toBase58(), account: { data: [data, 'base64'] } },
            },
          },
        }),
      );
    }
  };
  server.on('connection', (socket) => {
    socket.on('message', (raw: Buffer) => {
      const request = JSON.parse(raw.toString()) as {
        id: number;
        method: string;
        params: unknown[];
      };
      requests.push(request);
      socket.send(
        JSON.stringify(
          refuse
            ? {
                jsonrpc: '2.0',
                id: request.id,
                error: { code: -32601, message: 'Method not found' },
              }
            : { jsonrpc: '2.0', id: request.id, result: 7 },
        ),
      );
    });
  });
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url, requests, notify };
}

async function until(probe: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !probe(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(probe()).toBe(true);
}

describe('WsTapePointerFeed', () => {
  it('subscribes once to every tape account (memcmp on the tag) and reports their records', async () => {
    const { server, url, requests, notify } = await pubSub(false);
    const states: boolean[] = [];
    const changed: [string, number][] = [];
    const watch = new WsTapePointerFeed(url, PROGRAM).watch({
      changed: (tape, record) => changed.push([tape, record.version]),
      state: (up) => states.push(up),
    });
    await until(() => states.includes(true));
    expect(requests).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'programSubscribe',
        params: [
          PROGRAM.toBase58(),
          {
            encoding: 'base64',
            commitment: 'confirmed',
            filters: [{ memcmp: { offset: 0, bytes: '3' } }],
          },
        ],
      },
    ]);
    expect(AccountTag.Tape).toBe(2); // base58 '3' is the byte 2
    notify(4);
    await until(() => changed.length === 1);
    expect(changed).toEqual([[TAPE.toBase58(), 4]]);
    // Lost: reported down, then subscribed again.
    for (const client of server.clients) client.terminate();
    await until(() => states.length >= 3);
    expect(states.slice(0, 3)).toEqual([true, false, true]);
    expect(requests.length).toBe(2);
    watch.close();
    server.close();
  });

  it('stays down and retries with a growing delay when the node refuses the method', async () => {
    const { server, url, requests } = await pubSub(true);
    const states: boolean[] = [];
    const watch = new WsTapePointerFeed(url, PROGRAM, { retryMs: 20, maxRetryMs: 40 }).watch({
      changed: () => undefined,
      state: (up) => states.push(up),
    });
    await until(() => requests.length >= 3);
    expect(states).not.toContain(true);
    watch.close();
    const after = requests.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(requests.length).toBe(after);
    server.close();
  });

  it('derives the PubSub URL as web3.js does (RPC port + 1)', () => {
    expect(pubSubUrlOf('http://127.0.0.1:8899')).toBe('ws://127.0.0.1:8900/');
    expect(pubSubUrlOf('https://rpc.example/x')).toBe('wss://rpc.example/x');
  });
});
