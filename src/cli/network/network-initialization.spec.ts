import { Keypair, PublicKey } from '@solana/web3.js';
import { TapeInstructions } from '../../chain/tape-instructions';
import { CliError } from '../cli-error';
import { RecordingPrinter } from '../output/recording-printer';
import { assertConfigAsAsked, NetworkInitializations } from './network-initialization';
import { InitRequest, InitResult, NetworkInitializer } from './network-initializer';
import { NetworkSession } from './network-session';

const RPC_URL = 'http://127.0.0.1:18998';

function newTestService(initFails?: Error) {
  const wallet = Keypair.generate();
  const ix = new TapeInstructions(Keypair.generate().publicKey);
  const requests: InitRequest[] = [];
  const result = { programId: ix.programId, differences: [] } as unknown as InitResult;
  const initializer = {
    init: (req: InitRequest): Promise<InitResult> => {
      requests.push(req);
      req.progress('creating the Config');
      return initFails ? Promise.reject(initFails) : Promise.resolve(result);
    },
  };
  const balances = [1_000_000_000, 996_000_000];
  const session = {
    chain: { ix, rpc: { connection: { getBalance: () => Promise.resolve(balances.shift()!) } } },
    rpcUrl: RPC_URL,
    wallet: () => wallet,
    guarded: <T>(work: Promise<T>) => work,
    computeUnitPrice: undefined,
  } as unknown as NetworkSession;
  const printer = new RecordingPrinter();
  const sut = new NetworkInitializations(initializer as unknown as NetworkInitializer, printer);
  return { sut, session, printer, requests, wallet, ix, result };
}

describe('NetworkInitializations', () => {
  it("initialises the invocation's program, paid by the wallet, and reports what it spent", async () => {
    const t = newTestService();
    const storageAuthority = Keypair.generate().publicKey;
    const done = await t.sut.init(t.session, {
      price: 1000n,
      epochDuration: 3600,
      storageAuthority,
    });
    expect(done).toEqual({ result: t.result, spent: 4_000_000 });
    expect(t.requests).toHaveLength(1);
    expect(t.requests[0]).toMatchObject({
      rpcUrl: RPC_URL,
      ix: t.ix,
      payer: t.wallet,
      mint: undefined,
      price: 1000n,
      epochDurationSecs: 3600,
      storageAuthority,
    });
    expect(t.printer.notes).toEqual(['creating the Config']);
  });

  it('a CliError of the initializer is the line as it is', async () => {
    const refusal = new CliError('no program at X on Y (deploy it first: tape network deploy)');
    const t = newTestService(refusal);
    await expect(t.sut.init(t.session, {})).rejects.toBe(refusal);
  });
});

describe('assertConfigAsAsked', () => {
  const programId = new PublicKey('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin');

  it('passes a Config that has every value asked for', () => {
    expect(() =>
      assertConfigAsAsked({ programId, differences: [] } as unknown as InitResult),
    ).not.toThrow();
  });

  it('fails on an existing Config with other values, naming each', () => {
    expect(() =>
      assertConfigAsAsked({
        programId,
        differences: ['price is 1000, not 5', 'epoch duration is 3600s, not 60s'],
      } as unknown as InitResult),
    ).toThrow(
      new CliError(
        `the Config of ${programId.toBase58()} already exists with other values: price is 1000, not 5; epoch duration is 3600s, not 60s (a Config is never overwritten)`,
      ),
    );
  });
});
