import { Context, Keypair, KeyedAccountInfo, PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
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

  it('answers programSubscribe errors as Solana does', async () => {
    const ws = new (await import('ws')).default(net.wsUrl);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const answers: Array<{
      id: number;
      result?: unknown;
      error?: { code: number; message: string };
    }> = [];
    ws.on('message', (m: Buffer) => answers.push(JSON.parse(String(m))));
    const send = (id: number, params: unknown[]) =>
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'programSubscribe', params }));
    send(1, ['not a key']);
    send(2, [
      DEFAULT_TAPE_PROGRAM_ID.toBase58(),
      { filters: [{ memcmp: { offset: -1, bytes: '2' } }] },
    ]);
    send(3, [DEFAULT_TAPE_PROGRAM_ID.toBase58(), { encoding: 'base64+zstd' }]);
    send(4, [
      DEFAULT_TAPE_PROGRAM_ID.toBase58(),
      {
        encoding: 'base64',
        filters: [{ memcmp: { offset: 0, bytes: 'Ag==', encoding: 'base64' } }, { dataSize: 10 }],
      },
    ]);
    await eventually('four answers', () => answers.length >= 4);
    const byId = (id: number) => answers.find((a) => a.id === id)!;
    expect(byId(1).error).toEqual({ code: -32602, message: 'Invalid param: Invalid' });
    expect(byId(2).error?.message).toMatch(/memcmp offset must be a non-negative integer/);
    expect(byId(3).error?.code).toBe(-32602);
    expect(typeof byId(4).result).toBe('number');
    ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'programUnsubscribe',
        params: [byId(4).result],
      }),
    );
    await eventually('unsubscribed', () => answers.some((a) => a.id === 5));
    expect(answers.find((a) => a.id === 5)?.result).toBe(true);
    ws.close();
  }, 60_000);
});
