import {
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
} from '@solana/web3.js';
import { associatedTokenAddress } from '../src/chain/pdas';
import { TOKEN_PROGRAM_ID } from '../src/chain/program-ids';
import { LocalnetClient } from './support/clients/localnet-client';
import { LocalnetProcess, startLocalnetProcess } from './support/processes/localnet';
import { eventually } from './support/jest/eventually';

const RENT_EXEMPT_EMPTY = 890_880;
const rentFor = (bytes: number) => (128 + bytes) * 3480 * 2;

/** A System program transfer of `lamports` from `from` (its signer) to `to`. */
const transferOf = (from: Keypair, to: PublicKey, lamports: number) =>
  SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports });

describe('local network: System program, fees, rent, faucet and reads (web3.js over loopback)', () => {
  let net: LocalnetProcess;
  let client: LocalnetClient;

  beforeAll(async () => {
    net = await startLocalnetProcess();
    client = new LocalnetClient(net.rpcUrl, net.wsUrl);
  });
  afterAll(async () => {
    if (client) client.close();
    await net?.stop();
  });

  it('airdrops SOL through requestAirdrop and confirms it like a cluster', async () => {
    const to = Keypair.generate().publicKey;
    const signature = await client.connection.requestAirdrop(to, 3 * LAMPORTS_PER_SOL);
    await client.confirm(signature);
    expect(await client.connection.getBalance(to)).toBe(3 * LAMPORTS_PER_SOL);
    const status = await client.connection.getSignatureStatus(signature);
    expect(status.value).toMatchObject({ err: null, confirmationStatus: 'finalized' });
  });

  it('refuses an airdrop over the per-request limit', async () => {
    const reply = await client.rpc('requestAirdrop', [
      Keypair.generate().publicKey.toBase58(),
      1_000_001 * LAMPORTS_PER_SOL,
    ]);
    expect(reply.error?.code).toBe(-32602);
    expect(reply.error?.message).toMatch(/exceeds the limit/);
  });

  it('transfers lamports with sendAndConfirmTransaction and charges 5000 per signature', async () => {
    const from = await client.funded(2);
    const to = Keypair.generate().publicKey;
    const signature = await client.send([transferOf(from, to, LAMPORTS_PER_SOL)], [from]);
    expect(await client.connection.getBalance(to)).toBe(LAMPORTS_PER_SOL);
    expect(await client.connection.getBalance(from.publicKey)).toBe(LAMPORTS_PER_SOL - 5000);
    const tx = await client.connection.getTransaction(signature, {
      maxSupportedTransactionVersion: 0,
    });
    expect(tx?.meta?.fee).toBe(5000);
    expect(tx?.meta?.err).toBeNull();
    expect(tx?.meta?.preBalances.slice(0, 2)).toEqual([2 * LAMPORTS_PER_SOL, 0]);
    expect(tx?.meta?.postBalances.slice(0, 2)).toEqual([LAMPORTS_PER_SOL - 5000, LAMPORTS_PER_SOL]);
    expect(tx?.meta?.logMessages).toEqual([
      'Program 11111111111111111111111111111111 invoke [1]',
      'Program 11111111111111111111111111111111 success',
    ]);
  });

  it('charges two signatures when a second signer signs', async () => {
    const payer = await client.funded(2);
    const other = await client.funded(1);
    await client.send([transferOf(other, payer.publicKey, 1000)], [payer, other]);
    expect(await client.connection.getBalance(payer.publicKey)).toBe(
      2 * LAMPORTS_PER_SOL - 10_000 + 1000,
    );
    expect(await client.connection.getBalance(other.publicKey)).toBe(LAMPORTS_PER_SOL - 1000);
  });

  it('creates an account with createAccount, owned and sized as asked', async () => {
    const payer = await client.funded(2);
    const account = Keypair.generate();
    const owner = Keypair.generate().publicKey;
    const create = SystemProgram.createAccount({
      fromPubkey: payer.publicKey,
      newAccountPubkey: account.publicKey,
      lamports: rentFor(64),
      space: 64,
      programId: owner,
    });
    await client.send([create], [payer, account]);
    const info = await client.connection.getAccountInfo(account.publicKey);
    expect(info?.owner.toBase58()).toBe(owner.toBase58());
    expect(info?.data).toEqual(Buffer.alloc(64));
    expect(info?.lamports).toBe(rentFor(64));
    // The same instruction again: the account exists now.
    const again = await client.sendExpectingError([create], [payer, account]);
    expect(again.data?.err).toEqual({ InstructionError: [0, { Custom: 0 }] });
    expect(again.data?.logs?.join('\n')).toMatch(/already in use/);
  });

  it('refuses a createAccount the new account did not sign', async () => {
    const payer = await client.funded(1);
    const account = Keypair.generate();
    const ix = SystemProgram.createAccount({
      fromPubkey: payer.publicKey,
      newAccountPubkey: account.publicKey,
      lamports: rentFor(0),
      space: 0,
      programId: SystemProgram.programId,
    });
    ix.keys[1].isSigner = false;
    const error = await client.sendExpectingError([ix], [payer]);
    expect(error.code).toBe(-32002);
    expect(error.data?.err).toEqual({ InstructionError: [0, 'MissingRequiredSignature'] });
  });

  it('enforces rent exemption after the transaction (InsufficientFundsForRent)', async () => {
    const payer = await client.funded(1);
    const error = await client.sendExpectingError(
      [transferOf(payer, Keypair.generate().publicKey, RENT_EXEMPT_EMPTY - 1)],
      [payer],
    );
    expect(error.code).toBe(-32002);
    expect(error.message).toBe(
      'Transaction simulation failed: Transaction results in an account (1) with insufficient funds for rent',
    );
    expect(error.data?.err).toEqual({ InsufficientFundsForRent: { account_index: 1 } });
    expect(await client.connection.getBalance(payer.publicKey)).toBe(LAMPORTS_PER_SOL);

    const exact = Keypair.generate().publicKey;
    await client.send([transferOf(payer, exact, RENT_EXEMPT_EMPTY)], [payer]);
    expect(await client.connection.getBalance(exact)).toBe(RENT_EXEMPT_EMPTY);
  });

  it('lets an account be emptied to zero (the account is gone)', async () => {
    const from = await client.funded(1);
    const to = Keypair.generate().publicKey;
    await client.send([transferOf(from, to, LAMPORTS_PER_SOL - 5000)], [from]);
    expect(await client.connection.getAccountInfo(from.publicKey)).toBeNull();
  });

  it('records a failed transaction sent with skipPreflight and charges its fee', async () => {
    const from = await client.funded(1);
    const raw = await client.signed(
      [transferOf(from, Keypair.generate().publicKey, 5 * LAMPORTS_PER_SOL)],
      [from],
    );
    const reply = await client.rpc('sendTransaction', [
      raw,
      { encoding: 'base64', skipPreflight: true },
    ]);
    const signature = reply.result as string;
    const confirmed = await client.connection.confirmTransaction(
      { signature, ...(await client.connection.getLatestBlockhash()) },
      'confirmed',
    );
    expect(confirmed.value.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(await client.connection.getBalance(from.publicKey)).toBe(LAMPORTS_PER_SOL - 5000);
    const status = await client.rpc('getSignatureStatuses', [
      [signature],
      { searchTransactionHistory: true },
    ]);
    expect(status.result.value[0]).toMatchObject({
      err: { InstructionError: [0, { Custom: 1 }] },
      status: { Err: { InstructionError: [0, { Custom: 1 }] } },
      confirmations: null,
    });
    const tx = await client.connection.getTransaction(signature, {
      maxSupportedTransactionVersion: 0,
    });
    expect(tx?.meta?.logMessages).toContain(
      // The System program is a builtin: the runtime logs its message without "Program log:".
      `Transfer: insufficient lamports ${LAMPORTS_PER_SOL - 5000}, need ${5 * LAMPORTS_PER_SOL}`,
    );
  });

  it('refuses a fee payer that cannot pay the fee, without recording anything', async () => {
    const poor = Keypair.generate();
    const error = await client.sendExpectingError([transferOf(poor, poor.publicKey, 0)], [poor]);
    expect(error).toMatchObject({ code: -32002, data: { err: 'AccountNotFound' } });
  });

  it('mints storage tokens from the faucet into the owner ATA and reports token balances', async () => {
    const owner = Keypair.generate().publicKey;
    await client.storageTokens(owner, 2_500_000n);
    await client.storageTokens(owner, 1_000_000n);
    const { mint } = await client.networkConfig();
    const ata = associatedTokenAddress(owner, mint);
    const balance = await client.connection.getTokenAccountBalance(ata);
    expect(balance.value).toEqual({
      amount: '3500000',
      decimals: 6,
      uiAmount: 3.5,
      uiAmountString: '3.5',
    });
    const byOwner = await client.connection.getTokenAccountsByOwner(owner, { mint });
    expect(byOwner.value.map((a) => a.pubkey.toBase58())).toEqual([ata.toBase58()]);
    const parsed = await client.connection.getParsedTokenAccountsByOwner(owner, {
      programId: TOKEN_PROGRAM_ID,
    });
    expect(parsed.value[0].account.data.parsed).toMatchObject({
      type: 'account',
      info: { mint: mint.toBase58(), owner: owner.toBase58(), tokenAmount: { amount: '3500000' } },
    });
    const mintInfo = await client.connection.getParsedAccountInfo(mint);
    expect(mintInfo.value?.data).toMatchObject({ parsed: { type: 'mint', info: { decimals: 6 } } });
    const bad = await client.rpc('tape_requestStorageTokens', [owner.toBase58(), 'lots']);
    expect(bad.error?.code).toBe(-32602);
  });

  it('moves storage tokens with SPL Token Transfer and refuses overdrafts', async () => {
    const alice = await client.funded(1);
    const bob = Keypair.generate().publicKey;
    await client.storageTokens(alice.publicKey, 1_000n);
    await client.storageTokens(bob, 1n);
    const { mint } = await client.networkConfig();
    const transfer = (amount: bigint) => {
      const data = Buffer.alloc(9);
      data.writeUInt8(3, 0);
      data.writeBigUInt64LE(amount, 1);
      return new TransactionInstruction({
        programId: TOKEN_PROGRAM_ID,
        keys: [
          {
            pubkey: associatedTokenAddress(alice.publicKey, mint),
            isSigner: false,
            isWritable: true,
          },
          { pubkey: associatedTokenAddress(bob, mint), isSigner: false, isWritable: true },
          { pubkey: alice.publicKey, isSigner: true, isWritable: false },
        ],
        data,
      });
    };
    await client.send([transfer(400n)], [alice]);
    expect(await client.tokenBalance(alice.publicKey)).toBe(600n);
    expect(await client.tokenBalance(bob)).toBe(401n);
    const error = await client.sendExpectingError([transfer(601n)], [alice]);
    expect(error.data?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(error.data?.logs).toContain('Program log: Error: insufficient funds');
  });

  it('answers the cluster reads web3.js makes', async () => {
    const c = client.connection;
    expect(await c.getVersion()).toHaveProperty('solana-core');
    expect(await c.getGenesisHash()).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const before = await c.getBlockHeight();
    await eventually('a new block', async () => (await c.getBlockHeight()) > before);
    const info = await c.getEpochInfo();
    expect(info.absoluteSlot).toBeGreaterThan(0);
    expect(await c.getEpochSchedule()).toMatchObject({ slotsPerEpoch: 432000 });
    expect(await c.getMinimumBalanceForRentExemption(165)).toBe(rentFor(165));
    expect(await c.getRecentPrioritizationFees()).toEqual([]);
    const latest = await c.getLatestBlockhash();
    expect((await c.isBlockhashValid(latest.blockhash)).value).toBe(true);
    expect(latest.lastValidBlockHeight).toBeGreaterThanOrEqual((await c.getBlockHeight()) + 149);
    const time = await c.getBlockTime(await c.getSlot());
    expect(Math.abs((time ?? 0) - Date.now() / 1000)).toBeLessThan(5);
    expect((await client.rpc('getHealth')).result).toBe('ok');
  });

  it('prices a message with getFeeForMessage (null once its blockhash is unknown)', async () => {
    const payer = Keypair.generate();
    const tx = new Transaction({
      feePayer: payer.publicKey,
      recentBlockhash: (await client.connection.getLatestBlockhash()).blockhash,
    }).add(transferOf(payer, payer.publicKey, 1));
    expect((await client.connection.getFeeForMessage(tx.compileMessage())).value).toBe(5000);
    tx.recentBlockhash = Keypair.generate().publicKey.toBase58();
    expect((await client.connection.getFeeForMessage(tx.compileMessage())).value).toBeNull();
  });

  it('filters getProgramAccounts by dataSize and memcmp, with and without context', async () => {
    const owner = Keypair.generate().publicKey;
    await client.storageTokens(owner, 7n);
    const { mint } = await client.networkConfig();
    const filters = [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: owner.toBase58() } }];
    const found = await client.connection.getProgramAccounts(TOKEN_PROGRAM_ID, { filters });
    expect(found.map((a) => a.pubkey.toBase58())).toEqual([
      associatedTokenAddress(owner, mint).toBase58(),
    ]);
    const ctx = await client.rpc('getProgramAccounts', [
      TOKEN_PROGRAM_ID.toBase58(),
      { encoding: 'base64', filters, withContext: true },
    ]);
    expect(ctx.result.context.slot).toBeGreaterThan(0);
    expect(ctx.result.value).toHaveLength(1);
    const none = await client.connection.getProgramAccounts(TOKEN_PROGRAM_ID, {
      filters: [
        { dataSize: 165 },
        { memcmp: { offset: 32, bytes: Keypair.generate().publicKey.toBase58() } },
      ],
    });
    expect(none).toEqual([]);
    const tooMany = await client.rpc('getProgramAccounts', [
      TOKEN_PROGRAM_ID.toBase58(),
      {
        filters: [
          { dataSize: 1 },
          { dataSize: 1 },
          { dataSize: 1 },
          { dataSize: 1 },
          { dataSize: 1 },
        ],
      },
    ]);
    expect(tooMany.error?.code).toBe(-32602);
  });

  it('reads many accounts at once and encodes data as asked', async () => {
    const owner = Keypair.generate().publicKey;
    await client.storageTokens(owner, 1n);
    const { mint } = await client.networkConfig();
    const missing = Keypair.generate().publicKey;
    const infos = await client.connection.getMultipleAccountsInfo([mint, missing]);
    expect(infos[0]?.data.length).toBe(82);
    expect(infos[1]).toBeNull();
    const b58 = await client.rpc('getAccountInfo', [mint.toBase58(), { encoding: 'base58' }]);
    expect(b58.result.value.data[1]).toBe('base58');
    const legacy = await client.rpc('getAccountInfo', [
      associatedTokenAddress(owner, mint).toBase58(),
    ]);
    expect(legacy.error?.message).toMatch(/less than 128 bytes/);
    const sliced = await client.rpc('getAccountInfo', [
      mint.toBase58(),
      { encoding: 'base64', dataSlice: { offset: 44, length: 1 } },
    ]);
    expect(Buffer.from(sliced.result.value.data[0] as string, 'base64')).toEqual(Buffer.from([6]));
    const raw = await client.post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getAccountInfo',
        params: [mint.toBase58(), { encoding: 'base64' }],
      }),
    );
    expect(raw.text).toContain('"rentEpoch":18446744073709551615');
    const tooMany = await client.rpc('getMultipleAccounts', [Array(101).fill(mint.toBase58())]);
    expect(tooMany.error?.message).toMatch(/max 100/);
  });

  it('simulates without keeping anything, with logs and the accounts asked for', async () => {
    const from = await client.funded(1);
    const to = Keypair.generate().publicKey;
    const raw = await client.signed([transferOf(from, to, RENT_EXEMPT_EMPTY)], [from]);
    const sim = await client.rpc('simulateTransaction', [
      raw,
      {
        encoding: 'base64',
        sigVerify: true,
        accounts: { addresses: [to.toBase58()], encoding: 'base64' },
      },
    ]);
    expect(sim.result.value.err).toBeNull();
    expect(sim.result.value.accounts[0].lamports).toBe(RENT_EXEMPT_EMPTY);
    expect(sim.result.value.logs).toHaveLength(2);
    expect(await client.connection.getBalance(to)).toBe(0);
    const replaced = await client.rpc('simulateTransaction', [
      raw,
      { encoding: 'base64', replaceRecentBlockhash: true },
    ]);
    expect(replaced.result.value.replacementBlockhash.blockhash).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
  });

  it('notifies slot and account subscribers over the WebSocket', async () => {
    const slots: number[] = [];
    const slotSub = client.connection.onSlotChange((s) => slots.push(s.slot));
    const watched = Keypair.generate().publicKey;
    let accountSub = 0;
    const seen = new Promise<number>((resolve) => {
      accountSub = client.connection.onAccountChange(
        watched,
        (info) => resolve(info.lamports),
        'confirmed',
      );
    });
    // Slot notifications flowing: both subscriptions (sent in order on one socket) are taken.
    await eventually('slot notifications', () => slots.length > 0);
    await new Promise((r) => setTimeout(r, 100));
    await client.confirm(await client.connection.requestAirdrop(watched, LAMPORTS_PER_SOL));
    expect(await seen).toBe(LAMPORTS_PER_SOL);
    expect(slots.length).toBeGreaterThan(1);
    expect(slots[1]).toBeGreaterThan(slots[0]);
    await client.connection.removeSlotChangeListener(slotSub);
    await client.connection.removeAccountChangeListener(accountSub);
  });

  it('ignores Compute Budget instructions', async () => {
    const from = await client.funded(1);
    const computeBudget = new PublicKey('ComputeBudget111111111111111111111111111111');
    const limit = Buffer.from([2, 0x40, 0x0d, 0x03, 0x00]);
    await client.send(
      [
        new TransactionInstruction({ programId: computeBudget, keys: [], data: limit }),
        transferOf(from, from.publicKey, 1),
      ],
      [from],
    );
    expect(await client.connection.getBalance(from.publicKey)).toBe(LAMPORTS_PER_SOL - 5000);
  });
});
