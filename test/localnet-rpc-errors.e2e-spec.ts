import {
  AddressLookupTableAccount,
  Keypair,
  LAMPORTS_PER_SOL,
  MessageV0,
  SendTransactionError,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  VersionedTransaction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import WebSocket from 'ws';
import { LocalnetClient } from './support/clients/localnet-client';
import { LocalnetProcess, startLocalnetProcess } from './support/processes/localnet';

const SLOT_MS = 20;

describe('local network: hostile and malformed input answered as a Solana node would', () => {
  let net: LocalnetProcess;
  let client: LocalnetClient;
  let payer: Keypair;

  beforeAll(async () => {
    net = await startLocalnetProcess({ slotMs: SLOT_MS });
    client = new LocalnetClient(net.rpcUrl, net.wsUrl);
    payer = await client.funded(10);
  });
  afterAll(async () => {
    if (client) client.close();
    await net?.stop();
  });

  const transfer = (lamports = 1_000_000, to = Keypair.generate().publicKey) =>
    SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports });

  const send = (raw: string, config: Record<string, unknown> = { encoding: 'base64' }) =>
    client.rpc('sendTransaction', [raw, config]);

  it('refuses a forged signature with -32003 and keeps nothing', async () => {
    const before = await client.connection.getBalance(payer.publicKey);
    const wire = Buffer.from(await client.signed([transfer()], [payer]), 'base64');
    wire[10] ^= 0xff;
    const reply = await send(wire.toString('base64'));
    expect(reply.error).toEqual({
      code: -32003,
      message: 'Transaction signature verification failure',
    });
    await expect(client.connection.sendRawTransaction(wire)).rejects.toThrow(SendTransactionError);
    expect(await client.connection.getBalance(payer.publicKey)).toBe(before);
  });

  it('drops a forged transaction sent with skipPreflight: signature returned, never lands', async () => {
    const before = await client.connection.getBalance(payer.publicKey);
    const wire = Buffer.from(await client.signed([transfer()], [payer]), 'base64');
    wire[10] ^= 0xff;
    const reply = await send(wire.toString('base64'), { encoding: 'base64', skipPreflight: true });
    expect(reply.result).toBe(bs58.encode(wire.subarray(1, 65)));
    await new Promise((r) => setTimeout(r, 200));
    const status = await client.connection.getSignatureStatus(reply.result as string, {
      searchTransactionHistory: true,
    });
    expect(status.value).toBeNull();
    expect(await client.connection.getBalance(payer.publicKey)).toBe(before);
  });

  it('refuses a transaction missing a required signature', async () => {
    const other = await client.funded(1);
    const tx = new Transaction({
      feePayer: payer.publicKey,
      recentBlockhash: (await client.connection.getLatestBlockhash()).blockhash,
    }).add(
      SystemProgram.transfer({
        fromPubkey: other.publicKey,
        toPubkey: payer.publicKey,
        lamports: 1,
      }),
    );
    tx.partialSign(payer);
    const unsigned = tx.serialize({ requireAllSignatures: false, verifySignatures: false });
    const reply = await send(unsigned.toString('base64'));
    expect(reply.error?.code).toBe(-32003);

    // Fewer signatures on the wire than the header requires: not even a transaction.
    const message = tx.serializeMessage();
    const short = Buffer.concat([Buffer.from([1]), tx.signatures[0].signature!, message]);
    const sanitize = await send(short.toString('base64'));
    expect(sanitize.error).toEqual({
      code: -32602,
      message: 'invalid transaction: Transaction failed to sanitize accounts offsets correctly',
    });
    expect(await client.connection.getBalance(other.publicKey)).toBe(LAMPORTS_PER_SOL);
  });

  it('rejects a replayed transaction (AlreadyProcessed) and never applies it twice', async () => {
    const to = Keypair.generate().publicKey;
    const raw = await client.signed([transfer(1_000_000, to)], [payer]);
    const first = await send(raw);
    await client.confirm(first.result as string);
    const replay = await send(raw);
    expect(replay.error?.code).toBe(-32002);
    expect(replay.error?.message).toBe(
      'Transaction simulation failed: This transaction has already been processed',
    );
    expect(replay.error?.data?.err).toBe('AlreadyProcessed');
    const skipped = await send(raw, { encoding: 'base64', skipPreflight: true });
    expect(skipped.result).toBe(first.result);
    await new Promise((r) => setTimeout(r, 100));
    expect(await client.connection.getBalance(to)).toBe(1_000_000);
  });

  it('rejects a stale blockhash (older than 150 blocks) and an unknown one (BlockhashNotFound)', async () => {
    const old = await client.connection.getLatestBlockhash();
    while ((await client.connection.getBlockHeight()) <= old.lastValidBlockHeight) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await client.connection.isBlockhashValid(old.blockhash)).value).toBe(false);
    const stale = await send(await client.signed([transfer()], [payer], old.blockhash));
    expect(stale.error?.code).toBe(-32002);
    expect(stale.error?.message).toBe('Transaction simulation failed: Blockhash not found');
    expect(stale.error?.data?.err).toBe('BlockhashNotFound');
    const unknown = await send(
      await client.signed([transfer()], [payer], Keypair.generate().publicKey.toBase58()),
    );
    expect(unknown.error?.data?.err).toBe('BlockhashNotFound');
  });

  it('refuses an oversized transaction, in text and in bytes', async () => {
    const tx = new Transaction({
      feePayer: payer.publicKey,
      recentBlockhash: (await client.connection.getLatestBlockhash()).blockhash,
    }).add(
      new TransactionInstruction({
        programId: SystemProgram.programId,
        keys: [],
        data: Buffer.alloc(1200),
      }),
    );
    const message = tx.serializeMessage();
    const wire = Buffer.concat([
      Buffer.from([1]),
      Buffer.from(nacl.sign.detached(message, payer.secretKey)),
      message,
    ]);
    expect(wire.length).toBeGreaterThan(1232);
    const text = await send(wire.toString('base64'));
    expect(text.error?.code).toBe(-32602);
    expect(text.error?.message).toBe(
      `base64 encoded solana_sdk::transaction::versioned::VersionedTransaction too large: ${wire.toString('base64').length} bytes (max: encoded/raw 1644/1232)`,
    );
    const bytes = await send(
      Buffer.concat([wire.subarray(0, 1232), Buffer.alloc(1)]).toString('base64'),
    );
    expect(bytes.error?.message).toBe(
      'decoded solana_sdk::transaction::versioned::VersionedTransaction too large: 1233 bytes (max: 1232 bytes)',
    );
  });

  it('refuses malformed base64 and bytes that are not a transaction', async () => {
    const bad = await send('AQID$$$=');
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.message).toMatch(/^invalid base64 encoding: InvalidByte\(4, 36\)/);
    const garbage = await send(Buffer.from([1, 2, 3]).toString('base64'));
    expect(garbage.error?.code).toBe(-32602);
    expect(garbage.error?.message).toMatch(
      /^failed to deserialize solana_sdk::transaction::versioned::VersionedTransaction/,
    );
    const trailing = Buffer.concat([
      Buffer.from(await client.signed([transfer()], [payer]), 'base64'),
      Buffer.from([0]),
    ]);
    expect((await send(trailing.toString('base64'))).error?.code).toBe(-32602);
    const b58 = await client.rpc('sendTransaction', ['0OIl']);
    expect(b58.error?.message).toMatch(/^invalid base58 encoding/);
  });

  it('accepts base58, the default encoding of sendTransaction', async () => {
    const raw = Buffer.from(await client.signed([transfer()], [payer]), 'base64');
    const reply = await client.rpc('sendTransaction', [bs58.encode(raw)]);
    await client.confirm(reply.result as string);
  });

  it('runs a v0 transaction, refuses address lookup tables clearly, and gates getTransaction', async () => {
    const { blockhash } = await client.connection.getLatestBlockhash();
    const v0 = new VersionedTransaction(
      MessageV0.compile({
        payerKey: payer.publicKey,
        recentBlockhash: blockhash,
        instructions: [transfer()],
      }),
    );
    v0.sign([payer]);
    const signature = await client.connection.sendTransaction(v0);
    await client.confirm(signature);
    const legacyClient = await client.rpc('getTransaction', [signature, { encoding: 'json' }]);
    expect(legacyClient.error?.code).toBe(-32015);
    const tx = await client.connection.getTransaction(signature, {
      maxSupportedTransactionVersion: 0,
    });
    expect(tx?.version).toBe(0);

    const table = new AddressLookupTableAccount({
      key: Keypair.generate().publicKey,
      state: {
        deactivationSlot: BigInt('18446744073709551615'),
        lastExtendedSlot: 0,
        lastExtendedSlotStartIndex: 0,
        authority: undefined,
        addresses: [Keypair.generate().publicKey],
      },
    });
    const withTable = new VersionedTransaction(
      MessageV0.compile({
        payerKey: payer.publicKey,
        recentBlockhash: blockhash,
        instructions: [transfer(1_000_000, table.state.addresses[0])],
        addressLookupTableAccounts: [table],
      }),
    );
    withTable.sign([payer]);
    const reply = await send(Buffer.from(withTable.serialize()).toString('base64'));
    expect(reply.error?.code).toBe(-32602);
    expect(reply.error?.message).toMatch(/address lookup tables are not supported/);
  });

  it('answers a malformed JSON body with -32700 and a bad request with -32600', async () => {
    const parse = await client.post('{"jsonrpc":"2.0","id":1,"method":');
    expect(parse.status).toBe(200);
    expect(JSON.parse(parse.text)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error' },
      id: null,
    });
    for (const body of [
      '{"id":1,"method":"getSlot"}',
      '{"jsonrpc":"1.0","id":1,"method":"getSlot"}',
      '42',
      '{"jsonrpc":"2.0","id":{},"method":"getSlot"}',
    ]) {
      const reply = JSON.parse((await client.post(body)).text);
      expect(reply.error).toEqual({ code: -32600, message: 'Invalid request' });
    }
  });

  it('answers an unknown method with -32601 and bad params with -32602', async () => {
    expect((await client.rpc('getEverything')).error).toEqual({
      code: -32601,
      message: 'Method not found',
    });
    expect((await client.rpc('constructor')).error?.code).toBe(-32601);
    expect((await client.rpc('getBalance', ['not-a-key'])).error).toEqual({
      code: -32602,
      message: 'Invalid param: Invalid',
    });
    expect((await client.rpc('getBalance', ['1111'])).error?.message).toBe(
      'Invalid param: WrongSize',
    );
    expect((await client.rpc('getBalance', [])).error?.code).toBe(-32602);
    expect((await client.rpc('getSlot', [{ commitment: 'sometime' }])).error?.code).toBe(-32602);
    const reply = JSON.parse(
      (await client.post('{"jsonrpc":"2.0","id":1,"method":"getBalance","params":{"a":1}}')).text,
    );
    expect(reply.error.code).toBe(-32602);
    const min = await client.rpc('getSlot', [{ minContextSlot: 10 ** 12 }]);
    expect(min.error?.code).toBe(-32016);
  });

  it('answers batches in order, skips notifications, refuses an empty batch', async () => {
    const batch = JSON.parse(
      (
        await client.post(
          JSON.stringify([
            { jsonrpc: '2.0', id: 'a', method: 'getHealth' },
            { jsonrpc: '2.0', id: 2, method: 'nope' },
            { jsonrpc: '2.0', method: 'getSlot' },
            { jsonrpc: '2.0', id: 3, method: 'getMinimumBalanceForRentExemption', params: [0] },
          ]),
        )
      ).text,
    );
    expect(batch).toEqual([
      { jsonrpc: '2.0', result: 'ok', id: 'a' },
      { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 2 },
      { jsonrpc: '2.0', result: 890880, id: 3 },
    ]);
    expect(JSON.parse((await client.post('[]')).text).error.code).toBe(-32600);
    const notification = await client.post('{"jsonrpc":"2.0","method":"getSlot"}');
    expect(notification).toEqual({ status: 200, text: '' });
  });

  it('refuses a body over 1 MiB with 413 and stays up', async () => {
    const big = await client.post(`[${'"x",'.repeat(300_000)}"x"]`);
    expect(big.status).toBe(413);
    expect((await client.rpc('getHealth')).result).toBe('ok');
    const health = await fetch(`${net.rpcUrl}/health`);
    expect(await health.text()).toBe('ok');
    expect((await fetch(net.rpcUrl)).status).toBe(405);
  });

  it('speaks JSON-RPC errors on the WebSocket too', async () => {
    const ws = new WebSocket(net.wsUrl);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const replies: Array<{ id?: unknown; error?: { code: number } }> = [];
    ws.on('message', (m: Buffer) => replies.push(JSON.parse(m.toString())));
    const ask = async (text: string) => {
      const count = replies.length;
      ws.send(text);
      while (replies.length === count) await new Promise((r) => setTimeout(r, 10));
      // The first message after the request is its reply; a slot notification may follow it
      // within the same polling interval.
      return replies[count];
    };
    expect((await ask('{oops')).error?.code).toBe(-32700);
    expect((await ask('{"jsonrpc":"2.0","id":1,"method":"getEverything"}')).error?.code).toBe(
      -32601,
    );
    expect(
      (await ask('{"jsonrpc":"2.0","id":2,"method":"signatureSubscribe","params":["nope"]}')).error
        ?.code,
    ).toBe(-32602);
    expect(
      (await ask('{"jsonrpc":"2.0","id":3,"method":"signatureUnsubscribe","params":[12345]}')).error
        ?.code,
    ).toBe(-32602);
    const sub = await ask('{"jsonrpc":"2.0","id":4,"method":"slotSubscribe"}');
    expect(typeof (sub as { result?: unknown }).result).toBe('number');
    ws.close();
  });

  it('still works for honest clients after all that (sendAndConfirmTransaction)', async () => {
    const to = Keypair.generate().publicKey;
    await client.send([transfer(2_000_000, to)], [payer]);
    expect(await client.connection.getBalance(to)).toBe(2_000_000);
  });
});
