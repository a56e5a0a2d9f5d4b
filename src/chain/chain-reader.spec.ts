import { AccountInfo, Connection, Keypair, PublicKey } from '@solana/web3.js';
import {
  encodeConfig,
  encodeName,
  encodeTape,
  NameRecord,
  NetworkConfig,
  TapeRecord,
  TrackKind,
  NO_VERSION,
} from './account-layouts';
import { ChainError } from './chain-error';
import { ChainReader } from './chain-reader';
import { ChainRpc } from './chain-rpc';
import { TapeInstructions } from './tape-instructions';

const programId = new PublicKey('Tape111111111111111111111111111111111111111');
const ix = new TapeInstructions(programId);
const tape = ix.pdas.tape(Keypair.generate().publicKey);
const GENESIS = 1_700_000_000;

const tapeRecord: TapeRecord = {
  authority: Keypair.generate().publicKey,
  delegate: null,
  capacity: 1 << 20,
  used: 10,
  activeEpoch: 1,
  expiryEpoch: 9,
  createdAt: GENESIS,
  nameCount: 2,
  trackCount: 2,
  payer: Keypair.generate().publicKey,
  ...NO_VERSION,
};

function nameRecord(name: string): NameRecord {
  return {
    tape,
    track: Keypair.generate().publicKey,
    commitment: Buffer.alloc(32, name.length),
    size: name.length,
    kind: TrackKind.Blob,
    updatedAt: GENESIS,
    contentType: 'text/html',
    name,
  };
}

const config: NetworkConfig = {
  epochDurationSecs: 3600,
  genesisTime: GENESIS,
  pricePerMibEpoch: 10n,
  mint: Keypair.generate().publicKey,
  treasury: Keypair.generate().publicKey,
  storageAuthority: Keypair.generate().publicKey,
  admin: Keypair.generate().publicKey,
};

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
    getProgramAccounts: async (program: PublicKey, options: unknown) => {
      record('getProgramAccounts', [program, options]);
      return [...accounts]
        .filter(([, a]) => a.data[0] === 4)
        .map(([k, a]) => ({ pubkey: new PublicKey(k), account: a }));
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
  it('reads a tape and names of it in one getMultipleAccounts, in the order asked', async () => {
    const { sut, calls, put } = newTestReader();
    put(tape, account(encodeTape(tapeRecord)));
    put(ix.pdas.name(tape, 'index.html'), account(encodeName(nameRecord('index.html'))));
    put(ix.pdas.name(tape, '404.html'), account(encodeName(nameRecord('404.html'))));
    const read = await sut.getTapeWithNames(tape, ['index.html', 'missing.png', '404.html']);
    expect(read.tape).toEqual(tapeRecord);
    expect(read.names.map((n) => n?.name ?? null)).toEqual(['index.html', null, '404.html']);
    expect(calls).toHaveLength(1);
    expect(calls[0].method).toBe('getMultipleAccountsInfo');
    expect((calls[0].args[0] as PublicKey[]).map((k) => k.toBase58())).toEqual([
      tape.toBase58(),
      ix.pdas.name(tape, 'index.html').toBase58(),
      ix.pdas.name(tape, 'missing.png').toBase58(),
      ix.pdas.name(tape, '404.html').toBase58(),
    ]);
  });

  it('ignores accounts of another owner or another kind', async () => {
    const { sut, put } = newTestReader();
    put(tape, account(encodeTape(tapeRecord), Keypair.generate().publicKey));
    put(ix.pdas.name(tape, 'a'), account(encodeTape(tapeRecord)));
    const read = await sut.getTapeWithNames(tape, ['a']);
    expect(read).toEqual({ tape: null, names: [null] });
  });

  it('splits reads of more than 100 accounts, keeping the order', async () => {
    const { sut, calls, put } = newTestReader();
    const names = Array.from({ length: 250 }, (_, i) => `file-${i}.txt`);
    for (const n of names.filter((_, i) => i % 3 === 0)) {
      put(ix.pdas.name(tape, n), account(encodeName(nameRecord(n))));
    }
    const found = await sut.getNames(tape, names);
    expect(found.map((r, i) => (r ? i : -1)).filter((i) => i >= 0)).toEqual(
      names.map((_, i) => i).filter((i) => i % 3 === 0),
    );
    expect(found.filter(Boolean).every((r, i) => r!.name === names[i * 3])).toBe(true);
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

  it('lists names with getProgramAccounts filtered on kind and tape', async () => {
    const { sut, calls, put } = newTestReader();
    put(ix.pdas.name(tape, 'a'), account(encodeName(nameRecord('a'))));
    const broken = Keypair.generate().publicKey;
    put(broken, account(Buffer.from([4, 1, 2])));
    const names = await sut.listNames(tape);
    expect(names.map((n) => n.name)).toEqual(['a']);
    expect(calls[0]).toEqual({
      method: 'getProgramAccounts',
      args: [
        programId,
        {
          filters: [
            { memcmp: { offset: 0, bytes: '5' } },
            { memcmp: { offset: 1, bytes: tape.toBase58() } },
          ],
        },
      ],
    });
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
