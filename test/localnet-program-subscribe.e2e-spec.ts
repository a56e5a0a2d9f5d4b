import { Context, Keypair, KeyedAccountInfo } from '@solana/web3.js';
import bs58 from 'bs58';
import WebSocket from 'ws';
import { AccountTag } from '../src/chain/account-layouts';
import { DEFAULT_TAPE_PROGRAM_ID } from '../src/chain/program-ids';
import { ACROSS_PROCESSES, eventually } from './support/jest/eventually';
import { LocalnetClient } from './support/clients/localnet-client';
import { LocalnetProcess, startLocalnetProcess } from './support/processes/localnet';
import { TapeFixture, TestTape } from './support/clients/localnet-tapes';

type Seen = Array<{ pubkey: string; tag: number; owner: string; slot: number }>;

type Filter = { memcmp: { offset: number; bytes: string } };

const tagIs = (tag: AccountTag): Filter => ({
  memcmp: { offset: 0, bytes: bs58.encode(Buffer.from([tag])) },
});

/** web3.js's onProgramAccountChange on tape-program accounts with these memcmp filters. */
function watch(client: LocalnetClient, seen: Seen, filters: Filter[]): number {
  return client.connection.onProgramAccountChange(
    DEFAULT_TAPE_PROGRAM_ID,
    (info: KeyedAccountInfo, context: Context) =>
      seen.push({
        pubkey: info.accountId.toBase58(),
        tag: info.accountInfo.data[0],
        owner: info.accountInfo.owner.toBase58(),
        slot: context.slot,
      }),
    { commitment: 'confirmed', filters },
  );
}

type Answer = { result?: unknown; error?: { code: number; message: string } };

/** JSON-RPC calls over one raw WebSocket (ids 0, 1, …): their answers, in the order asked. */
async function pubsubCalls(wsUrl: string, calls: Array<[string, unknown[]]>): Promise<Answer[]> {
  const ws = new WebSocket(wsUrl);
  try {
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const answers = new Map<number, Answer>();
    ws.on('message', (m: Buffer) => {
      const answer = JSON.parse(String(m)) as Answer & { id?: number };
      if (typeof answer.id === 'number') answers.set(answer.id, answer);
    });
    calls.forEach(([method, params], id) =>
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params })),
    );
    await eventually('every call answered', () => answers.size === calls.length);
    return calls.map((_, id) => answers.get(id)!);
  } finally {
    ws.terminate();
  }
}

describe('local network programSubscribe through web3.js onProgramAccountChange', () => {
  let net: LocalnetProcess;
  let client: LocalnetClient;
  let tapes: TapeFixture;

  beforeAll(async () => {
    net = await startLocalnetProcess();
    client = new LocalnetClient(net.rpcUrl, net.wsUrl);
    tapes = new TapeFixture(client, net.storageAuthority());
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await net?.stop();
  });

  /** Publishes the tape's next version (a write to the tape account only). */
  const publish = (payer: Keypair, tape: TestTape) => tapes.publish(payer, tape);

  /** Waits until the node has taken every subscription asked before (one socket, in order). */
  const subscribed = async () => {
    let slots = 0;
    const slotSub = client.connection.onSlotChange(() => slots++);
    await eventually('subscribed', () => slots > 0, ACROSS_PROCESSES);
    await client.connection.removeSlotChangeListener(slotSub);
  };

  it('notifies a write to an account that passes the memcmp filters, not one that does not', async () => {
    // web3.js retries a refused subscription for ever: ask once by hand first, so a node
    // without programSubscribe fails this test instead of spinning it.
    const [probe] = await pubsubCalls(net.wsUrl, [
      ['programSubscribe', [DEFAULT_TAPE_PROGRAM_ID.toBase58(), { encoding: 'base64' }]],
    ]);
    expect(probe).toEqual({ jsonrpc: '2.0', result: expect.any(Number), id: 0 });
    const tapeWrites: Seen = [];
    const tapeSub = watch(client, tapeWrites, [tagIs(AccountTag.Tape)]);
    await subscribed();

    const payer = await tapes.wallet();
    const tape = await tapes.createTape(payer);
    await eventually('the new tape notified', () =>
      tapeWrites.some((w) => w.pubkey === tape.address.toBase58()),
    );
    const created = tapeWrites.find((w) => w.pubkey === tape.address.toBase58())!;
    expect(created).toMatchObject({
      tag: AccountTag.Tape,
      owner: DEFAULT_TAPE_PROGRAM_ID.toBase58(),
    });
    expect(created.slot).toBeGreaterThan(0);

    // A second filter on the tape's authority (the bytes right after the tag): only that
    // tape's writes reach it, another tape's Publish does not.
    const ownWrites: Seen = [];
    watch(client, ownWrites, [
      tagIs(AccountTag.Tape),
      { memcmp: { offset: 1, bytes: tape.keypair.publicKey.toBase58() } },
    ]);
    await subscribed();
    const other = await tapes.createTape(payer);
    await publish(payer, other);
    await publish(payer, tape);
    await eventually('the Publish notified', () =>
      ownWrites.some((w) => w.pubkey === tape.address.toBase58()),
    );
    await eventually(
      'the other tape’s Publish notified to the unfiltered subscriber',
      () => tapeWrites.filter((w) => w.pubkey === other.address.toBase58()).length >= 2,
    );
    expect(new Set(ownWrites.map((w) => w.pubkey))).toEqual(new Set([tape.address.toBase58()]));
    expect(tapeWrites.every((w) => w.tag === AccountTag.Tape)).toBe(true);

    // programUnsubscribe: the next writes are not notified to the removed subscription.
    await client.connection.removeProgramAccountChangeListener(tapeSub);
    const heard = tapeWrites.length;
    const heardOwn = ownWrites.length;
    await tapes.createTape(payer);
    await publish(payer, tape);
    await eventually('the second Publish notified', () => ownWrites.length > heardOwn);
    expect(tapeWrites).toHaveLength(heard);
  }, 120_000);

  it('answers programSubscribe errors as Solana does; only its own connection unsubscribes', async () => {
    const program = DEFAULT_TAPE_PROGRAM_ID.toBase58();
    const [badKey, badOffset, zstd, ok] = await pubsubCalls(net.wsUrl, [
      ['programSubscribe', ['not a key']],
      ['programSubscribe', [program, { filters: [{ memcmp: { offset: -1, bytes: '2' } }] }]],
      ['programSubscribe', [program, { encoding: 'base64+zstd' }]],
      [
        'programSubscribe',
        [
          program,
          {
            encoding: 'base64',
            filters: [
              { memcmp: { offset: 0, bytes: 'Ag==', encoding: 'base64' } },
              { dataSize: 10 },
            ],
          },
        ],
      ],
    ]);
    expect(badKey.error).toEqual({ code: -32602, message: 'Invalid param: Invalid' });
    expect(badOffset.error?.message).toMatch(/memcmp offset must be a non-negative integer/);
    expect(zstd.error?.code).toBe(-32602);
    expect(typeof ok.result).toBe('number');
    // A subscription belongs to its connection: another one cannot remove it.
    const [unsubscribed] = await pubsubCalls(net.wsUrl, [['programUnsubscribe', [ok.result]]]);
    expect(unsubscribed.error).toEqual({ code: -32602, message: 'Invalid subscription id.' });
  }, 60_000);
});
