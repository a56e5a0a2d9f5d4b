import bs58 from 'bs58';
import { CommittedTransaction } from '../../bank/bank';
import { StoredAccount } from '../../ledger/ledger-store';
import { encodeAccount } from '../account-encoding';
import { toJsonText } from '../json-text';
import { ChainNotifier } from './chain-notifier';
import { NotificationQueue } from './notification-queue';
import { PubsubClient, SubscriptionRegistry } from './subscription-registry';

const PROGRAM = Buffer.alloc(32, 7);
const OTHER_PROGRAM = Buffer.alloc(32, 8);

/** A queue that records what it was asked to send. */
function recordingClient(limitKey = '192.0.2.1') {
  const shared: Array<{ head: string; body: Buffer; tail: string }> = [];
  const texts: string[] = [];
  const queue = {
    open: true,
    sendShared: (head: string, body: Buffer, tail: string) => shared.push({ head, body, tail }),
    sendText: (text: string) => texts.push(text),
  } as unknown as NotificationQueue;
  const client: PubsubClient = { queue, limitKey, ids: new Set() };
  const messages = () => shared.map((m) => JSON.parse(m.head + m.body.toString() + m.tail));
  return { client, shared, texts, messages };
}

function account(data: Buffer, owner = PROGRAM): StoredAccount {
  return { lamports: 5, owner, executable: false, rentEpoch: 18446744073709551615n, data };
}

function committed(writes: CommittedTransaction['writes'], slot = 9): CommittedTransaction {
  return { signature: 'sig', slot, err: null, writes };
}

function newNotifier(perAddress = 100) {
  const registry = new SubscriptionRegistry({ perConnection: 50, perAddress });
  const errors: unknown[] = [];
  const sut = new ChainNotifier(registry, 64 * 1024 * 1024, (_m, err) => errors.push(err));
  return { sut, registry, errors };
}

describe('ChainNotifier', () => {
  it('encodes a written account once and sends the same bytes to every subscriber', () => {
    const { sut, registry } = newNotifier();
    const key = Buffer.alloc(32, 1);
    const big = account(Buffer.alloc(1024 * 1024, 3));
    const clients = [recordingClient(), recordingClient(), recordingClient('192.0.2.2')];
    const ids = clients.map(({ client }) =>
      registry.add({ kind: 'account', client, key: key.toString('base64'), encoding: 'base64' }),
    );
    sut.transactionCommitted(committed([{ pubkey: key, account: big }]));
    const bodies = clients.map((c) => c.shared[0].body);
    expect(bodies[1]).toBe(bodies[0]);
    expect(bodies[2]).toBe(bodies[0]);
    // What each one reads is Solana's accountNotification, with its own subscription id.
    clients.forEach((c, i) =>
      expect(c.messages()[0]).toEqual({
        jsonrpc: '2.0',
        method: 'accountNotification',
        params: {
          result: {
            context: { slot: 9 },
            value: JSON.parse(toJsonText(encodeAccount(big, 'base64'))),
          },
          subscription: ids[i],
        },
      }),
    );
  });

  it('notifies program subscribers of the accounts the program owns that pass their filters', () => {
    const { sut, registry } = newNotifier();
    const tag2 = recordingClient();
    const sized = recordingClient();
    const everything = recordingClient();
    const program = PROGRAM.toString('base64');
    const tag2Id = registry.add({
      kind: 'program',
      client: tag2.client,
      key: program,
      encoding: 'base64',
      filters: [{ memcmp: { offset: 0, bytes: Buffer.from([2]) } }],
    });
    registry.add({
      kind: 'program',
      client: sized.client,
      key: program,
      encoding: 'base64',
      filters: [{ dataSize: 3 }],
    });
    registry.add({
      kind: 'program',
      client: everything.client,
      key: program,
      encoding: 'base64',
      filters: [],
    });
    const tape = Buffer.alloc(32, 0xaa);
    const track = Buffer.alloc(32, 0xbb);
    sut.transactionCommitted(
      committed([
        { pubkey: tape, account: account(Buffer.from([2, 0, 0, 0])) },
        { pubkey: track, account: account(Buffer.from([3, 0, 0])) },
        // Another program's account, a closed account: nobody here hears of them.
        { pubkey: Buffer.alloc(32, 0xcc), account: account(Buffer.from([2]), OTHER_PROGRAM) },
        { pubkey: Buffer.alloc(32, 0xdd), account: null },
      ]),
    );
    expect(tag2.messages()).toEqual([
      {
        jsonrpc: '2.0',
        method: 'programNotification',
        params: {
          result: {
            context: { slot: 9 },
            value: {
              pubkey: bs58.encode(tape),
              account: {
                data: ['AgAAAA==', 'base64'],
                executable: false,
                lamports: 5,
                owner: bs58.encode(PROGRAM),
                rentEpoch: 18446744073709552000,
                space: 4,
              },
            },
          },
          subscription: tag2Id,
        },
      },
    ]);
    expect(sized.messages().map((m) => m.params.result.value.pubkey)).toEqual([bs58.encode(track)]);
    expect(everything.messages()).toHaveLength(2);
    // Both program subscribers of the track got one and the same encoding.
    expect(sized.shared[0].body).toBe(everything.shared[1].body);
  });

  it('sends a closed account to its account subscribers as Solana does, and skips base58 of large data', () => {
    const { sut, registry } = newNotifier();
    const gone = recordingClient();
    const base58 = recordingClient();
    const key = Buffer.alloc(32, 4);
    registry.add({
      kind: 'account',
      client: gone.client,
      key: key.toString('base64'),
      encoding: 'base64',
    });
    sut.transactionCommitted(committed([{ pubkey: key, account: null }]));
    expect(gone.messages()[0].params.result.value).toMatchObject({
      lamports: 0,
      data: ['', 'base64'],
    });
    const large = Buffer.alloc(32, 5);
    registry.add({
      kind: 'account',
      client: base58.client,
      key: large.toString('base64'),
      encoding: 'binary',
    });
    sut.transactionCommitted(committed([{ pubkey: large, account: account(Buffer.alloc(200)) }]));
    expect(base58.shared).toEqual([]);
  });

  it('caps subscriptions per client address over all its connections, and gives them back', () => {
    const { registry } = newNotifier(2);
    const a = recordingClient('192.0.2.7');
    const b = recordingClient('192.0.2.7');
    registry.add({ kind: 'slot', client: a.client });
    registry.add({ kind: 'slot', client: b.client });
    expect(() => registry.add({ kind: 'slot', client: b.client })).toThrow(
      'too many subscriptions from this address (max 2)',
    );
    expect(registry.add({ kind: 'slot', client: recordingClient('192.0.2.8').client })).toBe(2);
    registry.removeClient(a.client);
    expect(registry.add({ kind: 'slot', client: b.client })).toBe(3);
  });

  it('ends a signature subscription with its notification', () => {
    const { sut, registry } = newNotifier();
    const c = recordingClient();
    const id = registry.add({ kind: 'signature', client: c.client, key: 'sig', received: false });
    sut.transactionCommitted(committed([]));
    expect(c.texts.map((t) => JSON.parse(t))).toEqual([
      {
        jsonrpc: '2.0',
        method: 'signatureNotification',
        params: { result: { context: { slot: 9 }, value: { err: null } }, subscription: id },
      },
    ]);
    expect(registry.get(id)).toBeUndefined();
    expect(c.client.ids.size).toBe(0);
  });
});
