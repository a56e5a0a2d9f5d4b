import { Keypair, LAMPORTS_PER_SOL, SystemProgram } from '@solana/web3.js';
import bs58 from 'bs58';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentVersion } from '../src/chain/tape-history';
import { LocalnetClient } from './support/clients/localnet-client';
import { LocalnetProcess, startLocalnetProcess } from './support/processes/localnet';
import {
  packInstructions,
  signersOf,
  TapeFixture,
  TestTape,
} from './support/clients/localnet-tapes';

interface Batch {
  raw: string;
  tape: TestTape;
  /** The tape's version once this transaction's Publishes have landed (they start at 0 on it). */
  version: number;
  roots: Buffer[];
}

/**
 * Signed transactions (full packets) of `count` Publishes in all, each transaction publishing
 * successive versions of one tape from 0 (its own tape unless `shared` is given: then the
 * transactions continue one another and must land in order).
 */
async function signedPublishBatches(
  t: TapeFixture,
  payer: Keypair,
  count: number,
  shared?: TestTape,
): Promise<Batch[]> {
  const [signer, tapeKey] = [Keypair.generate().publicKey, Keypair.generate().publicKey];
  const probe = Array.from({ length: 64 }, (_, k) => t.publishIx(signer, tapeKey, k));
  const perTx = packInstructions(probe, payer.publicKey)[0].length;
  const transactions = Math.ceil(count / perTx);
  const tapes: TestTape[] = [];
  while (!shared && tapes.length < transactions) {
    const n = Math.min(16, transactions - tapes.length);
    tapes.push(...(await Promise.all(Array.from({ length: n }, () => t.createTape(payer)))));
  }
  const { blockhash } = await t.client.connection.getLatestBlockhash();
  const batches: Batch[] = [];
  let version = 0;
  for (let i = 0; i < transactions; i++) {
    const tape = shared ?? tapes[i];
    const from = shared ? version : 0;
    const n = Math.min(perTx, count - i * perTx);
    const roots = Array.from({ length: n }, () => randomBytes(32));
    const group = roots.map((root, k) =>
      t.publishIx(tape.keypair.publicKey, tape.address, from + k, 100, 100, root),
    );
    batches.push({
      raw: await t.client.signed(
        group,
        signersOf(payer, tape.keypair, t.storageAuthority),
        blockhash,
      ),
      tape,
      version: from + n,
      roots,
    });
    version = from + n;
  }
  return batches;
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

  it('lands every Publish of four concurrent writers to one tape, each exactly once', async () => {
    const owner = await t.wallet();
    const tape = await t.createTape(owner, 64 * 1024 * 1024, 2);
    const writers = await Promise.all([0, 1, 2, 3].map(() => t.wallet(5, 0n)));
    let conflicts = 0;
    await Promise.all(
      writers.map(async (writer) => {
        for (let round = 0; round < 5; round++) {
          // Compare-and-swap: a writer that lost the race reads the sequence again and retries.
          for (;;) {
            const expected = (await t.tape(tape.address)).sequence;
            try {
              await t.client.send(
                [t.publishIx(tape.keypair.publicKey, tape.address, expected, 100)],
                signersOf(writer, tape.keypair, t.storageAuthority),
              );
              break;
            } catch (err) {
              // 6012 version conflict (0x177c): another writer published that version first.
              if (!String(err).includes('0x177c')) throw err;
              conflicts++;
            }
          }
        }
      }),
    );
    const after = await t.tape(tape.address);
    expect(after).toMatchObject({ version: 20, sequence: 20, keptBytes: 100 });
    expect(currentVersion(after)!.bytes).toBe(100);
    console.log(`20 Publishes by 4 writers on one tape: ${conflicts} lost races retried`);
  });
});

describe('local network: restarts and kill -9 keep every confirmed transaction', () => {
  let dataDir: string;
  let net: LocalnetProcess | undefined;
  // Solana's own slot time. Both tests send transactions signed seconds earlier (before a
  // restart, or 600 Publishes signed up front), and a blockhash lives 150 slots: at the harness's
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
    const batches = await signedPublishBatches(t, payer, 40, tape);
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
    const record = await after.t.tape(tape.address);
    expect(record.version).toBe(40);
    expect(currentVersion(record)!.root.equals(batches.at(-1)!.roots.at(-1)!)).toBe(true);
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
    // Each transaction on a tape of its own: they may land in any order.
    const batches = await signedPublishBatches(t, payer, 600);
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
      const record = await after.t.tape(batches[i].tape.address);
      // All of a transaction's Publishes, or none of them; and they are there exactly when it landed.
      expect([0, batches[i].version]).toContain(record.version);
      expect(record.version > 0).toBe(landed[i] !== null);
      if (record.version > 0) {
        expect(currentVersion(record)!.root.equals(batches[i].roots.at(-1)!)).toBe(true);
      }
      total += record.version;
    }
    for (const batch of confirmed) {
      expect(landed[batches.indexOf(batch)]).toMatchObject({ err: null });
    }
    expect(total).toBeGreaterThanOrEqual(confirmed.reduce((n, b) => n + b.roots.length, 0));
    // The network goes on: a write after the crash confirms.
    const tape = batches[0].tape;
    const before = (await after.t.tape(tape.address)).version;
    expect(await after.t.publish(payer, tape)).toBe(before + 1);
    expect((await after.t.tape(tape.address)).version).toBe(before + 1);
  });
});

function signatureOf(rawBase64: string): string {
  return bs58.encode(Buffer.from(rawBase64, 'base64').subarray(1, 65));
}
