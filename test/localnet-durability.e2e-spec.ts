import { Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram } from '@solana/web3.js';
import bs58 from 'bs58';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeName } from '../src/chain/account-layouts';
import { LocalnetClient } from './support/localnet-client';
import { LocalnetProcess, startLocalnetProcess } from './support/localnet-process';
import { packInstructions, TapeFixture, TestTape } from './support/localnet-tapes';

interface Batch {
  raw: string;
  names: string[];
}

/** Signed SetName transactions (full packets) pointing `count` names at `track`. */
async function signedNameBatches(
  t: TapeFixture,
  payer: Keypair,
  tape: TestTape,
  track: PublicKey,
  prefix: string,
  count: number,
): Promise<Batch[]> {
  const names = Array.from({ length: count }, (_, i) => `${prefix}/page-${i}.html`);
  const instructions = names.map((n) =>
    t.setNameIx(payer.publicKey, tape.keypair.publicKey, tape.address, n, track),
  );
  const { blockhash } = await t.client.connection.getLatestBlockhash();
  const batches: Batch[] = [];
  let offset = 0;
  for (const group of packInstructions(instructions, payer.publicKey)) {
    batches.push({
      raw: await t.client.signed(group, [payer, tape.keypair], blockhash),
      names: names.slice(offset, offset + group.length),
    });
    offset += group.length;
  }
  return batches;
}

/** How many of `names` exist on chain, and whether each points at `track`. */
async function existingNames(
  t: TapeFixture,
  tape: PublicKey,
  names: string[],
  track: PublicKey,
): Promise<number> {
  const infos = await t.client.connection.getMultipleAccountsInfo(
    names.map((n) => t.ix.pdas.name(tape, n)),
  );
  for (const info of infos) {
    if (info) expect(decodeName(info.data).track.toBase58()).toBe(track.toBase58());
  }
  return infos.filter((i) => i !== null).length;
}

/** Clients whose WebSocket must be closed before their node stops (see closeClients). */
const openClients = new Set<LocalnetClient>();

/**
 * Closes each client's Connection WebSocket for good. web3.js builds it with rpc-websockets and
 * `max_reconnects: Infinity`, so a socket open when its node stops (or is killed) retries forever
 * and Jest never exits; web3.js 1.x has no public close.
 */
function closeClients(): void {
  for (const client of openClients) client.close();
  openClients.clear();
}

async function setUp(net: LocalnetProcess): Promise<{ client: LocalnetClient; t: TapeFixture }> {
  const client = new LocalnetClient(net.rpcUrl, net.wsUrl);
  openClients.add(client);
  const authority = net.storageAuthority();
  await client.confirm(
    await client.connection.requestAirdrop(authority.publicKey, LAMPORTS_PER_SOL),
  );
  return { client, t: new TapeFixture(client, authority) };
}

describe('local network: concurrent writers', () => {
  let net: LocalnetProcess;
  let t: TapeFixture;

  beforeAll(async () => {
    net = await startLocalnetProcess();
    ({ t } = await setUp(net));
  });
  afterAll(async () => {
    closeClients();
    await net?.stop();
  });

  it('lands every write of four concurrent writers to one tape, with exact counters', async () => {
    const owner = await t.wallet();
    const tape = await t.createTape(owner, 64 * 1024 * 1024, 2);
    const shared = await t.certifiedTrack(owner, tape, 1000);
    const writers = await Promise.all([0, 1, 2, 3].map(() => t.wallet(5, 0n)));
    await Promise.all(
      writers.map(async (writer, w) => {
        for (let round = 0; round < 5; round++) {
          const names = [0, 1, 2, 3].map((i) => `w${w}/r${round}/n${i}`);
          await t.client.send(
            names.map((n) =>
              t.setNameIx(writer.publicKey, tape.keypair.publicKey, tape.address, n, shared),
            ),
            [writer, tape.keypair],
          );
        }
      }),
    );
    // Two writers upload the same content at once: the track is written once, counted once.
    const same = Buffer.alloc(32, 7);
    await Promise.all(
      writers
        .slice(0, 2)
        .map((writer) =>
          t.client.send(
            [t.writeTrackIx(writer.publicKey, tape.keypair.publicKey, tape.address, 500, same).ix],
            [writer, tape.keypair],
          ),
        ),
    );
    expect(await t.tape(tape.address)).toMatchObject({ nameCount: 80, trackCount: 2, used: 1500 });
    expect((await t.track(shared))?.refs).toBe(80);
  });
});

describe('local network: restarts and kill -9 keep every confirmed transaction', () => {
  let dataDir: string;
  let net: LocalnetProcess | undefined;
  // Solana's own slot time. Both tests send transactions signed seconds earlier (before a
  // restart, or 600 names signed up front), and a blockhash lives 150 slots: at the harness's
  // 50 ms that is 7.5 s, which signing alone can take on a loaded 2-core machine.
  const durable = (): { dataDir: string; slotMs: number } => ({ dataDir, slotMs: 400 });

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'tape-localnet-durable-'));
  });
  afterAll(async () => {
    closeClients();
    await net?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('restarts gracefully with state, history and recent blockhashes intact', async () => {
    net = await startLocalnetProcess(durable());
    const { client, t } = await setUp(net);
    const genesis = await client.connection.getGenesisHash();
    const payer = await t.wallet();
    const tape = await t.createTape(payer);
    const track = await t.certifiedTrack(payer, tape, 10);
    const batches = await signedNameBatches(t, payer, tape, track, 'graceful', 40);
    const signatures: string[] = [];
    for (const b of batches) {
      const reply = await client.rpc('sendTransaction', [b.raw, { encoding: 'base64' }]);
      signatures.push(reply.result as string);
    }
    const before = await client.connection.getLatestBlockhash();
    const slot = await client.connection.getSlot();
    closeClients();
    expect(await net.stop('SIGTERM')).toBe(0);

    net = await startLocalnetProcess(durable());
    const after = await setUp(net);
    expect(await after.client.connection.getGenesisHash()).toBe(genesis);
    expect(await after.client.connection.getSlot()).toBeGreaterThanOrEqual(slot);
    const statuses = await after.client.connection.getSignatureStatuses(signatures, {
      searchTransactionHistory: true,
    });
    expect(statuses.value.every((s) => s !== null && s.err === null)).toBe(true);
    expect(
      await existingNames(
        after.t,
        tape.address,
        batches.flatMap((b) => b.names),
        track,
      ),
    ).toBe(40);
    expect((await after.t.tape(tape.address)).nameCount).toBe(40);
    // A blockhash handed out before the restart is still accepted after it.
    const to = Keypair.generate().publicKey;
    const raw = await after.client.signed(
      [
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: to,
          lamports: LAMPORTS_PER_SOL,
        }),
      ],
      [payer],
      before.blockhash,
    );
    const sent = await after.client.rpc('sendTransaction', [raw, { encoding: 'base64' }]);
    expect(sent.error).toBeUndefined();
    expect(await after.client.connection.getBalance(to)).toBe(LAMPORTS_PER_SOL);
  });

  it('after kill -9 mid-batch: every confirmed write is there, no transaction half-applied', async () => {
    net ??= await startLocalnetProcess(durable());
    const { client, t } = await setUp(net);
    const payer = await t.wallet();
    const tape = await t.createTape(payer, 64 * 1024 * 1024, 2);
    const track = await t.certifiedTrack(payer, tape, 10);
    const batches = await signedNameBatches(t, payer, tape, track, 'crash', 600);
    expect(batches.length).toBeGreaterThan(30);

    const confirmed: Batch[] = [];
    const victim = net;
    let killed = false;
    let next = 0;
    const sender = async () => {
      while (next < batches.length) {
        const batch = batches[next++];
        try {
          const reply = await client.rpc('sendTransaction', [batch.raw, { encoding: 'base64' }]);
          if (typeof reply.result === 'string') confirmed.push(batch);
        } catch {
          // the node died under this request: its outcome is unknown
        }
        if (!killed && confirmed.length >= 15) {
          killed = true;
          process.kill(victim.child.pid!, 'SIGKILL');
        }
      }
    };
    await Promise.all([sender(), sender(), sender(), sender(), sender(), sender()]);
    await victim.stop('SIGKILL');
    closeClients();
    expect(killed).toBe(true);
    expect(confirmed.length).toBeLessThan(batches.length);

    net = await startLocalnetProcess(durable());
    const after = await setUp(net);
    const landed = (
      await after.client.connection.getSignatureStatuses(
        batches.map((b) => signatureOf(b.raw)),
        { searchTransactionHistory: true },
      )
    ).value;
    let total = 0;
    for (let i = 0; i < batches.length; i++) {
      const present = await existingNames(after.t, tape.address, batches[i].names, track);
      // All of a transaction's names, or none of them; and they exist exactly when it landed.
      expect([0, batches[i].names.length]).toContain(present);
      expect(present > 0).toBe(landed[i] !== null);
      total += present;
    }
    for (const batch of confirmed) {
      expect(landed[batches.indexOf(batch)]).toMatchObject({ err: null });
    }
    const record = await after.t.tape(tape.address);
    expect(record.nameCount).toBe(total);
    expect((await after.t.track(track))?.refs).toBe(total);
    expect(total).toBeGreaterThanOrEqual(confirmed.reduce((n, b) => n + b.names.length, 0));
    // The network goes on: a write after the crash confirms.
    await after.client.send(
      [
        after.t.setNameIx(
          payer.publicKey,
          tape.keypair.publicKey,
          tape.address,
          'after-crash',
          track,
        ),
      ],
      [payer, tape.keypair],
    );
    expect((await after.t.tape(tape.address)).nameCount).toBe(total + 1);
  });
});

function signatureOf(rawBase64: string): string {
  return bs58.encode(Buffer.from(rawBase64, 'base64').subarray(1, 65));
}
