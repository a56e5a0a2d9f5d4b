import { Context, Keypair, KeyedAccountInfo, PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import WebSocket from 'ws';
import { AccountTag } from '../src/chain/account-layouts';
import { DEFAULT_TAPE_PROGRAM_ID } from '../src/chain/program-ids';
import { ACROSS_PROCESSES, eventually } from './support/eventually';
import { LocalnetClient } from './support/localnet-client';
import { LocalnetProcess, startLocalnetProcess } from './support/localnet-process';
import { TapeFixture, TestTape } from './support/localnet-tapes';

type Seen = Array<{ pubkey: string; tag: number; owner: string; slot: number }>;

/** web3.js's onProgramAccountChange with a memcmp filter on the tag byte of tape-program accounts. */
function watchTag(client: LocalnetClient, tag: AccountTag, seen: Seen): number {
  return client.connection.onProgramAccountChange(
    DEFAULT_TAPE_PROGRAM_ID,
    (info: KeyedAccountInfo, context: Context) =>
      seen.push({
        pubkey: info.accountId.toBase58(),
        tag: info.accountInfo.data[0],
        owner: info.accountInfo.owner.toBase58(),
        slot: context.slot,
      }),
    {
      commitment: 'confirmed',
      filters: [{ memcmp: { offset: 0, bytes: bs58.encode(Buffer.from([tag])) } }],
    },
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

  const writeTrack = async (payer: Keypair, tape: TestTape): Promise<PublicKey> => {
    const w = tapes.writeTrackIx(payer.publicKey, tape.keypair.publicKey, tape.address, 1000);
    await client.send([w.ix], [payer, tape.keypair]);
    return w.track;
  };

  it('notifies a write to an account that passes the memcmp filter, not one that does not', async () => {
    // web3.js retries a refused subscription for ever: ask once by hand first, so a node
    // without programSubscribe fails this test instead of spinning it.
    const [probe] = await pubsubCalls(net.wsUrl, [
      ['programSubscribe', [DEFAULT_TAPE_PROGRAM_ID.toBase58(), { encoding: 'base64' }]],
    ]);
    expect(probe).toEqual({ jsonrpc: '2.0', result: expect.any(Number), id: 0 });
    const tapeWrites: Seen = [];
    const trackWrites: Seen = [];
    const tapeSub = watchTag(client, AccountTag.Tape, tapeWrites);
    watchTag(client, AccountTag.Track, trackWrites);
    // web3.js subscribes in the order asked, on one socket: a slot notification means the
    // node has taken both program subscriptions before it.
    let slots = 0;
    const slotSub = client.connection.onSlotChange(() => slots++);
    await eventually('subscribed', () => slots > 0, ACROSS_PROCESSES);
    await client.connection.removeSlotChangeListener(slotSub);

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

    // A track is a program account too, with another tag: only the Track subscriber hears it.
    const track = await writeTrack(payer, tape);
    await eventually('the track notified', () =>
      trackWrites.some((w) => w.pubkey === track.toBase58()),
    );
    expect(trackWrites.map((w) => w.pubkey)).toEqual([track.toBase58()]);
    expect(trackWrites[0].tag).toBe(AccountTag.Track);
    expect(tapeWrites.every((w) => w.tag === AccountTag.Tape)).toBe(true);
    expect(tapeWrites.some((w) => w.pubkey === track.toBase58())).toBe(false);

    // programUnsubscribe: the next tape is not notified to the removed subscription.
    await client.connection.removeProgramAccountChangeListener(tapeSub);
    const heard = tapeWrites.length;
    const other = await tapes.createTape(payer);
    const secondTrack = await writeTrack(payer, other);
    await eventually('the second track notified', () =>
      trackWrites.some((w) => w.pubkey === secondTrack.toBase58()),
    );
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
