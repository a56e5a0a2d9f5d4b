import { Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram } from '@solana/web3.js';
import { request } from 'node:http';
import WebSocket from 'ws';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { LocalnetClient } from './support/clients/localnet-client';
import { eventually } from './support/jest/eventually';

const MiB = 1024 * 1024;
const PROGRAM_ACCOUNTS_LIMIT = 8;
/** Bytes of one JSON-RPC response in this test (a batch may hold two). */
const RESPONSE_LIMIT = 16 * 1024 * 1024;

interface Reply {
  status: number;
  ms: number;
  text: string;
}

/** A raw JSON-RPC POST from a chosen loopback source address (one "client IP" per address). */
function post(url: string, body: string, from = '127.0.0.1', contentType = 'application/json') {
  const started = performance.now();
  return new Promise<Reply>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            ms: performance.now() - started,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

type RpcAnswer = {
  id: number;
  result?: unknown;
  error?: { code: number; message: string; data?: { retryAfterSecs?: number } };
};

const call = (id: number, method: string, params: unknown[] = []) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

/** Small requests, one after the other, while `hostile` runs: the slowest answer's time. */
async function slowestAnswerDuring(url: string, hostile: Promise<unknown>): Promise<number> {
  let done = false;
  void hostile.finally(() => (done = true));
  let slowest = 0;
  let answered = 0;
  while (!done || answered === 0) {
    const reply = await post(url, JSON.stringify(call(1, 'getSlot')));
    expect(JSON.parse(reply.text)).toHaveProperty('result');
    slowest = Math.max(slowest, reply.ms);
    answered++;
  }
  await hostile;
  return slowest;
}

describe('local network JSON-RPC: hostile requests are refused and the gateway stays up', () => {
  let gw: GatewayProcess;
  let client: LocalnetClient;
  let big: PublicKey;

  beforeAll(async () => {
    gw = await startGateway({
      env: {
        TAPE__LOCALNET__RPC_MAX_PROGRAM_ACCOUNTS: String(PROGRAM_ACCOUNTS_LIMIT),
        // One 10 MiB account (~14 MB of base64) fits a response, three do not; two fit a batch.
        TAPE__LOCALNET__RPC_MAX_RESPONSE_BYTES: String(RESPONSE_LIMIT),
        TAPE__LOCALNET__RPC_MAX_BATCH_RESPONSE_BYTES: String(2 * RESPONSE_LIMIT),
        // 127.0.0.1 (this test's own client) stays unlimited; 127.0.0.2+ are rate-limited.
        TAPE__LOCALNET__FAUCET_UNLIMITED_IPS: '["127.0.0.1"]',
        TAPE__LOCALNET__FAUCET_IP_BURST: '3',
        TAPE__LOCALNET__FAUCET_IP_PER_MINUTE: '1',
        TAPE__LOCALNET__FAUCET_RECIPIENT_BURST: '2',
        TAPE__LOCALNET__FAUCET_RECIPIENT_PER_MINUTE: '1',
      },
    });
    const port = Number(new URL(gw.rpcUrl).port);
    client = new LocalnetClient(gw.rpcUrl, `ws://127.0.0.1:${port + 1}`);
    const payer = await client.funded(200);
    big = await client.systemAccount(payer, 10 * MiB);
  }, 120_000);

  afterAll(async () => {
    client?.close();
    await gw?.stop();
  });

  const expectAlive = async () => {
    expect(gw.child.exitCode).toBeNull();
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    expect(await client.connection.getSlot()).toBeGreaterThan(0);
  };

  it('answers a 5.9 KB batch of getAccountInfo for a 10 MiB account with errors, not a crash', async () => {
    const entry = (id: number) =>
      call(id, 'getAccountInfo', [big.toBase58(), { encoding: 'base64' }]);
    const batch: unknown[] = [];
    while (JSON.stringify(batch).length < 5900) batch.push(entry(batch.length));
    const hostile = post(gw.rpcUrl, JSON.stringify(batch));
    const slowest = await slowestAnswerDuring(gw.rpcUrl, hostile);
    const reply = await hostile;
    expect(reply.status).toBe(200);
    const answers = JSON.parse(reply.text) as RpcAnswer[];
    expect(answers).toHaveLength(batch.length);
    // At most what the batch's 32 MiB allow (two such accounts), then -32600 for every other.
    const refused = answers.filter((a) => a.error);
    expect(answers.length - refused.length).toBeLessThanOrEqual(2);
    expect(refused.length).toBeGreaterThanOrEqual(batch.length - 2);
    for (const a of refused) {
      expect(a.error?.code).toBe(-32600);
      expect(a.error?.message).toMatch(/^response exceeds the limit of \d+ bytes; ask for less/);
    }
    expect(Buffer.byteLength(reply.text)).toBeLessThanOrEqual(32 * MiB);
    // Other callers are still answered while the batch is refused: no multi-second stall of the
    // node (the bound leaves room for a second test file sharing the 2 cores, jest.config.js).
    expect(slowest).toBeLessThan(2500);
    await expectAlive();
    // The real client still reads the account, a slice of it as anyone should.
    const info = await client.connection.getAccountInfo(big, {
      dataSlice: { offset: 0, length: 16 },
    });
    expect(info?.data.length).toBe(16);
  }, 60_000);

  it('bounds the accounts simulateTransaction returns', async () => {
    const payer = await client.funded(1);
    const wire = await client.signed(
      [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: big, lamports: 1 })],
      [payer],
    );
    const simulate = (addresses: string[]) =>
      client.rpc('simulateTransaction', [
        wire,
        { encoding: 'base64', accounts: { addresses, encoding: 'base64' } },
      ]);
    const tooMany = await simulate(Array<string>(4).fill(big.toBase58()));
    expect(tooMany.error).toEqual({
      code: -32602,
      message: 'Invalid params: Too many accounts provided; max 3',
    });
    const tooBig = await simulate(Array<string>(3).fill(big.toBase58()));
    expect(tooBig.error?.code).toBe(-32600);
    expect(tooBig.error?.message).toMatch(
      new RegExp(`^response exceeds the limit of ${RESPONSE_LIMIT} bytes`),
    );
    const one = await simulate([payer.publicKey.toBase58()]);
    expect(one.result.value.accounts).toHaveLength(1);
    await expectAlive();
  }, 60_000);

  it('refuses a 7,000-request getProgramAccounts batch at once', async () => {
    const entry = (id: number) =>
      call(id, 'getProgramAccounts', [SystemProgram.programId.toBase58()]);
    const huge = JSON.stringify(Array.from({ length: 7000 }, (_, i) => entry(i)));
    const refused = await post(gw.rpcUrl, huge);
    expect(refused.status).toBe(413);
    expect(refused.ms).toBeLessThan(1000);
    // Under the body limit, a batch longer than 100 requests is one -32600.
    const long = await post(
      gw.rpcUrl,
      JSON.stringify(Array.from({ length: 101 }, (_, i) => call(i, 'getSlot'))),
    );
    expect(JSON.parse(long.text)).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32600,
        message: 'batch of 101 requests exceeds the limit of 100; send smaller batches',
      },
      id: null,
    });
    await expectAlive();
  }, 60_000);

  it('bounds getProgramAccounts with the scan error, and answers the same scan narrowed by a filter', async () => {
    for (let i = 0; i <= PROGRAM_ACCOUNTS_LIMIT; i++) await client.funded(1);
    const reply = await client.rpc('getProgramAccounts', [
      SystemProgram.programId.toBase58(),
      { encoding: 'base64' },
    ]);
    expect(reply.error?.code).toBe(-32012);
    expect(reply.error?.message).toBe(
      `scan aborted: The accumulated scan results exceeded the limit (more than ${PROGRAM_ACCOUNTS_LIMIT} accounts); ` +
        'narrow the query with filters (dataSize, memcmp) or ask for a dataSlice',
    );
    const narrowed = await client.connection.getProgramAccounts(SystemProgram.programId, {
      filters: [{ dataSize: 10 * MiB }],
      dataSlice: { offset: 0, length: 0 },
    });
    expect(narrowed.map((a) => a.pubkey.toBase58())).toEqual([big.toBase58()]);
    // Without a slice that one account is ~14 MB of base64 and still fits one response.
    const whole = await client.rpc('getProgramAccounts', [
      SystemProgram.programId.toBase58(),
      { encoding: 'base64', filters: [{ dataSize: 10 * MiB }] },
    ]);
    expect((whole.result as unknown[]).length).toBe(1);
  }, 60_000);

  it('rate-limits the faucet per client address and per recipient', async () => {
    const airdrop = (from: string, to: PublicKey) =>
      post(
        gw.rpcUrl,
        JSON.stringify(call(1, 'requestAirdrop', [to.toBase58(), LAMPORTS_PER_SOL])),
        from,
      ).then((r) => JSON.parse(r.text) as RpcAnswer);
    const someone = () => Keypair.generate().publicKey;
    for (let i = 0; i < 3; i++)
      expect((await airdrop('127.0.0.2', someone())).result).toBeDefined();
    const limited = await airdrop('127.0.0.2', someone());
    // The wait counts from the first request: a second or so may have gone by on a busy machine.
    const wait = limited.error?.data?.retryAfterSecs;
    expect(wait).toBeGreaterThanOrEqual(55);
    expect(wait).toBeLessThanOrEqual(60);
    expect(limited.error).toEqual({
      code: -32603,
      message: `IP limit reached; ip: 127.0.0.2 cap: 3 faucet requests, then 1 per minute; retry in ${wait} s`,
      data: { retryAfterSecs: wait },
    });
    const tokens = await post(
      gw.rpcUrl,
      JSON.stringify(call(2, 'tape_requestStorageTokens', [someone().toBase58(), '1000'])),
      '127.0.0.2',
    );
    expect((JSON.parse(tokens.text) as RpcAnswer).error?.message).toMatch(
      /^IP limit reached; ip: 127\.0\.0\.2 /,
    );
    // Another client address is unaffected.
    expect((await airdrop('127.0.0.3', someone())).result).toBeDefined();

    // One recipient, asked for by several clients: two grants, then refused; others unaffected.
    const target = someone();
    expect((await airdrop('127.0.0.4', target)).result).toBeDefined();
    expect((await airdrop('127.0.0.5', target)).result).toBeDefined();
    const again = await airdrop('127.0.0.6', target);
    expect(again.error?.code).toBe(-32603);
    expect(again.error?.message).toMatch(
      new RegExp(`^address limit reached; to: ${target.toBase58()} cap: 2 `),
    );
    expect((await airdrop('127.0.0.6', someone())).result).toBeDefined();

    // The operator's own address (unlimited here) and the real web3.js client still work.
    const funded = await client.funded(1);
    expect(await client.connection.getBalance(funded.publicKey)).toBe(LAMPORTS_PER_SOL);
  }, 60_000);

  it('refuses malformed HTTP input without harm: wrong content type, bad JSON, deep nesting', async () => {
    const body = JSON.stringify(call(1, 'getSlot'));
    const wrongType = await post(gw.rpcUrl, body, '127.0.0.1', 'text/plain');
    expect(wrongType.status).toBe(415);
    expect(wrongType.text).toBe(
      'Supplied content type is not allowed. Content-Type: application/json is required',
    );
    const badJson = await post(gw.rpcUrl, '{"jsonrpc":"2.0",');
    expect(JSON.parse(badJson.text)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error' },
      id: null,
    });
    const depth = 20_000;
    const deep = await post(
      gw.rpcUrl,
      `{"jsonrpc":"2.0","id":1,"method":"getAccountInfo","params":["${big.toBase58()}",${'['.repeat(depth)}${']'.repeat(depth)}]}`,
    );
    expect((JSON.parse(deep.text) as RpcAnswer).error?.code).toBe(-32602);
    const nestedBatch = await post(gw.rpcUrl, `${'['.repeat(depth)}${']'.repeat(depth)}`);
    expect(nestedBatch.status).toBe(200);
    await expectAlive();
  }, 60_000);

  it('survives hostile WebSocket messages and a base58 subscription to a 10 MiB account', async () => {
    const port = Number(new URL(gw.rpcUrl).port);
    const ws = new WebSocket(`ws://127.0.0.1:${port + 1}`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const replies: Array<{ id?: number; error?: { code: number } }> = [];
    ws.on('message', (m: Buffer) =>
      replies.push(JSON.parse(m.toString('utf8')) as (typeof replies)[0]),
    );
    ws.send('{"jsonrpc":');
    ws.send(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    ws.send(JSON.stringify(call(3, 'accountSubscribe', [big.toBase58(), { encoding: 'base58' }])));
    await eventually('the subscription answered', () => replies.some((r) => r.id === 3));
    expect(replies[0].error?.code).toBe(-32700);
    expect(replies.find((r) => r.id === 3)).toHaveProperty('result');
    // A write to the account: its base58 notification cannot be sent (over 128 bytes), which
    // must not fail the transaction that wrote it.
    const payer = await client.funded(1);
    await client.send(
      [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: big, lamports: 1 })],
      [payer],
    );
    ws.close();
    await expectAlive();
  }, 60_000);
});
