import { AccountInfo, Connection, Keypair, PublicKey } from '@solana/web3.js';
import { encodeConfig, encodeTape } from './account-layouts';
import { ChainError } from './chain-error';
import { ChainReader } from './chain-reader';
import { ChainRpc } from './chain-rpc';
import { TapeInstructions } from './tape-instructions';
import { testNetworkConfig, testTapeRecord } from './tape-record.spec-support';

const programId = new PublicKey('Tape111111111111111111111111111111111111111');
const ix = new TapeInstructions(programId);
const tape = ix.pdas.tape(Keypair.generate().publicKey);
const GENESIS = 1_700_000_000;

const tapeRecord = testTapeRecord({ activeEpoch: 1, expiryEpoch: 9, createdAt: GENESIS });
const config = testNetworkConfig({ genesisTime: GENESIS });

function account(data: Buffer, owner = programId): AccountInfo<Buffer> {
  return { data, owner, lamports: 1, executable: false, rentEpoch: 0 };
}

/** A Connection that serves accounts from a map and records every call. */
function newTestReader() {
  const accounts = new Map<string, AccountInfo<Buffer>>();
  const calls: { method: string; args: unknown[] }[] = [];
  let failing: Error | null = null;
  const record = (method: string, args: unknown[]) => {
    calls.push({ method, args });
    if (failing) throw failing;
  };
  const connection = {
    getAccountInfo: async (key: PublicKey) => {
      record('getAccountInfo', [key]);
      return accounts.get(key.toBase58()) ?? null;
    },
    getMultipleAccountsInfo: async (keys: PublicKey[]) => {
      record('getMultipleAccountsInfo', [keys]);
      return keys.map((k) => accounts.get(k.toBase58()) ?? null);
    },
    getSlot: async () => (record('getSlot', []), 100),
    getBlockTime: async () => (record('getBlockTime', []), GENESIS + 7200),
  } as unknown as Connection;
  const rpc = new ChainRpc(connection, 'http://rpc.test', 'confirmed');
  const sut = new ChainReader(rpc, ix);
  const put = (address: PublicKey, info: AccountInfo<Buffer>) =>
    accounts.set(address.toBase58(), info);
  const fail = (error: Error | null) => (failing = error);
  return { sut, calls, put, fail };
}

describe('ChainReader', () => {
  it('reads tapes in one getMultipleAccounts, in the order asked', async () => {
    const { sut, calls, put } = newTestReader();
    const other = ix.pdas.tape(Keypair.generate().publicKey);
    const missing = ix.pdas.tape(Keypair.generate().publicKey);
    put(tape, account(encodeTape(tapeRecord)));
    put(other, account(encodeTape({ ...tapeRecord, capacity: 7 })));
    const read = await sut.getTapes([tape, missing, other]);
    expect(read).toEqual([tapeRecord, null, { ...tapeRecord, capacity: 7 }]);
    expect(calls).toHaveLength(1);
    expect(calls[0].method).toBe('getMultipleAccountsInfo');
  });

  it('ignores accounts of another owner or another kind', async () => {
    const { sut, put } = newTestReader();
    const config2 = ix.pdas.tape(Keypair.generate().publicKey);
    put(tape, account(encodeTape(tapeRecord), Keypair.generate().publicKey));
    put(config2, account(encodeConfig(config)));
    expect(await sut.getTapes([tape, config2])).toEqual([null, null]);
    expect(await sut.getTape(tape)).toBeNull();
  });

  it('splits reads of more than 100 accounts, keeping the order', async () => {
    const { sut, calls, put } = newTestReader();
    const tapes = Array.from({ length: 250 }, () => ix.pdas.tape(Keypair.generate().publicKey));
    tapes.forEach((t, i) => {
      if (i % 3 === 0) put(t, account(encodeTape({ ...tapeRecord, capacity: i + 1 })));
    });
    const found = await sut.getTapes(tapes);
    expect(found.map((r) => r?.capacity ?? 0)).toEqual(
      tapes.map((_, i) => (i % 3 === 0 ? i + 1 : 0)),
    );
    expect(calls.map((c) => (c.args[0] as PublicKey[]).length)).toEqual([100, 100, 50]);
  });

  it('caches the network config and the chain clock', async () => {
    const { sut, calls, put } = newTestReader();
    put(ix.pdas.config(), account(encodeConfig(config)));
    expect(await sut.currentEpoch()).toBe(2);
    expect(await sut.currentEpoch()).toBe(2);
    expect(calls.map((c) => c.method).sort()).toEqual([
      'getAccountInfo',
      'getBlockTime',
      'getSlot',
    ]);
  });

  it('says so when the program has no config account', async () => {
    const { sut } = newTestReader();
    await expect(sut.networkConfig()).rejects.toThrow(
      'the tape program is not initialised on http://rpc.test (no config account)',
    );
  });

  it('fails with a ChainError naming the endpoint', async () => {
    const { sut, fail } = newTestReader();
    fail(new TypeError('fetch failed'));
    const error = await sut.getTape(tape).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainError);
    expect(error).toMatchObject({
      kind: 'unreachable',
      message: 'cannot reach the chain RPC at http://rpc.test',
    });
  });
});
