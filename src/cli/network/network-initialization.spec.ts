import { Keypair, PublicKey } from '@solana/web3.js';
import { TapeInstructions } from '../../chain/tape-instructions';
import { CliError } from '../cli-error';
import { RecordingPrinter } from '../output/recording-printer';
import { assertConfigAsAsked, NetworkInitializations } from './network-initialization';
import { InitRequest, InitResult, NetworkInitializer } from './network-initializer';
import { CliSigners } from '../session/cli-signers';
import { CliTarget } from '../session/cli-target';
import { testCliChain } from '../session/cli-chain.spec-support';

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
  const connection = { getBalance: () => Promise.resolve(balances.shift()!) };
  const printer = new RecordingPrinter();
  const sut = new NetworkInitializations(
    initializer as unknown as NetworkInitializer,
    printer,
    { rpcUrl: RPC_URL, computeUnitPrice: undefined } as unknown as CliTarget,
    testCliChain({ ix, rpc: { connection, ping: () => Promise.resolve() } }, RPC_URL),
    { wallet: () => wallet } as unknown as CliSigners,
  );
  return { sut, printer, requests, wallet, ix, result };
}

describe('NetworkInitializations', () => {
  it("initialises the invocation's program, paid by the wallet, and reports what it spent", async () => {
    const t = newTestService();
    const storageAuthority = Keypair.generate().publicKey;
    const done = await t.sut.init({
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
    await expect(t.sut.init({})).rejects.toBe(refusal);
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
