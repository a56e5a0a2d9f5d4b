import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { TapeRecord } from '../../chain/account-layouts';
import { ChainReader } from '../../chain/chain-reader';
import { ChainRpc } from '../../chain/chain-rpc';
import { ComputeUnitEstimator } from '../../chain/compute-units';
import { LAMPORTS_PER_SIGNATURE } from '../../chain/program-ids';
import { StorageCosts } from '../../chain/storage-costs';
import { Tag } from '../../chain/tape-instruction-data';
import { TapeInstructions } from '../../chain/tape-instructions';
import { testNetworkConfig, testTapeRecord } from '../../chain/tape-record.spec-support';
import { PackOptions, withComputeBudget } from '../../chain/transaction-packer';
import { CliError } from '../cli-error';
import { PaidSender } from '../funding/paid-sender';
import { CliChain } from '../session/cli-chain';
import { CliConfigStore } from '../session/cli-config-store';
import { CliSigners } from '../session/cli-signers';
import { LoadedTape } from '../session/loaded-tape';
import { TapeReservations } from './tape-reservations';

const MIB = 1024 * 1024;
const GENESIS = 1_700_000_000;
const EPOCH_SECS = 3600;
const RENT = 2_000_000;

const config = testNetworkConfig({
  epochDurationSecs: EPOCH_SECS,
  genesisTime: GENESIS,
  pricePerMibEpoch: 1000n,
});

function tapeRecord(over: Partial<TapeRecord> = {}): TapeRecord {
  return testTapeRecord({
    capacity: 3 * MIB,
    activeEpoch: 10,
    expiryEpoch: 20,
    createdAt: GENESIS,
    keptBytes: 512,
    ...over,
  });
}

interface Sent {
  instructions: TransactionInstruction[];
  signers: PublicKey[];
}

/**
 * A chain as simple as the flow needs: its clock at epoch 12 (half an hour in), balances the
 * test sets, tapes the test sets, and a writer that records what it was asked to send and lets
 * the test say what the chain holds afterwards.
 */
function newTestService(opts: { computeUnitPrice?: number; tape?: TapeRecord } = {}) {
  const ix = new TapeInstructions(Keypair.generate().publicKey);
  const payer = Keypair.generate();
  const events: string[] = [];
  const sent: Sent[] = [];
  const tapes = new Map<string, TapeRecord>();
  const chain = {
    currentEpoch: 12,
    now: GENESIS + 12 * EPOCH_SECS + 1800,
    balance: { lamports: 10_000_000_000, tokens: 1_000_000_000n },
    /** What the chain holds once a transaction lands. */
    afterSend: (_sent: Sent): void => undefined,
    sendFails: null as Error | null,
  };
  const reader = {
    networkConfig: () => Promise.resolve(config),
    chainTime: () => {
      events.push('chainTime');
      return Promise.resolve(chain.now);
    },
    currentEpoch: () => Promise.resolve(chain.currentEpoch),
    clock: async () => ({
      config,
      now: await reader.chainTime(),
      currentEpoch: chain.currentEpoch,
    }),
    getBalances: () => Promise.resolve({ ...chain.balance }),
    getTape: (address: PublicKey) => Promise.resolve(tapes.get(address.toBase58()) ?? null),
  };
  const packing: PackOptions = {
    computeUnits: new ComputeUnitEstimator(ix.programId),
    computeUnitPrice: opts.computeUnitPrice,
  };
  const writer = {
    packing,
    send: (instructions: TransactionInstruction[], signers: Keypair[]) => {
      events.push('send');
      if (chain.sendFails) return Promise.reject(chain.sendFails);
      const one = { instructions, signers: signers.map((s) => s.publicKey) };
      sent.push(one);
      chain.afterSend(one);
      return Promise.resolve(['signature']);
    },
  };
  const rpc = {
    call: <T>(
      request: (c: { getMinimumBalanceForRentExemption(n: number): Promise<number> }) => T,
    ) => request({ getMinimumBalanceForRentExemption: () => Promise.resolve(RENT) }),
  };
  const costs = new StorageCosts(rpc as unknown as ChainRpc, reader as unknown as ChainReader);
  const saved = new Map<string, Keypair>();
  const config_: Record<string, string | undefined> = {};
  const tapeAddress = opts.tape ? Keypair.generate().publicKey : null;
  if (tapeAddress && opts.tape) tapes.set(tapeAddress.toBase58(), opts.tape);
  // The chain client, the signers and the config directory the service is given by injection.
  const cliChain = {
    reader,
    writer,
    costs,
    ix,
    loadTape: (): Promise<LoadedTape> => {
      if (!tapeAddress) return Promise.reject(new CliError('no active tape'));
      return Promise.resolve({ address: tapeAddress, record: tapes.get(tapeAddress.toBase58())! });
    },
    guarded: <T>(work: Promise<T>) => {
      events.push('guarded');
      return work;
    },
  };
  const signers = { wallet: () => payer };
  const store = {
    saveTapeKeypair: (address: string, keypair: Keypair) => {
      events.push('save');
      saved.set(address, keypair);
      return `/config/tapes/${address}.json`;
    },
    set: (key: string, value: string | undefined) => {
      events.push(`set ${key}`);
      config_[key] = value;
    },
  };
  return {
    sut: new TapeReservations(
      cliChain as unknown as CliChain,
      signers as unknown as CliSigners,
      store as unknown as CliConfigStore,
      new PaidSender(cliChain as unknown as CliChain, signers as unknown as CliSigners),
    ),
    ix,
    payer,
    chain,
    tapes,
    tapeAddress,
    events,
    sent,
    saved,
    store: config_,
  };
}

describe('TapeReservations', () => {
  describe('create', () => {
    it('quotes the tokens for capacity × epochs and the rent plus both signatures', async () => {
      const { sut, payer } = newTestService();
      const quote = await sut.quoteCreate(3 * MIB, { epochs: 10 });
      expect(quote.epochs).toBe(10);
      expect(quote.activeEpoch).toBe(12);
      // 3 MiB × 10 epochs × 1000 base units.
      expect(quote.cost).toEqual({ tokens: 30_000n, lamports: RENT + 2 * LAMPORTS_PER_SIGNATURE });
      expect(quote.canPay).toBe(true);
      expect(quote.payer).toBe(payer);
      expect(quote.instruction.data[0]).toBe(Tag.CreateTape);
    });

    it('buys enough epochs to cover --duration from now (the current epoch is half gone)', async () => {
      const { sut } = newTestService();
      // 2h from half way through epoch 12: the rest of 12, 13, and half of 14 → 3 epochs.
      const quote = await sut.quoteCreate(MIB, { duration: 2 * 3600 });
      expect(quote.epochs).toBe(3);
    });

    it('adds the priority fee of --with-compute-unit-price to the lamports', async () => {
      const price = 2_000_000; // micro-lamports per unit: 2 lamports per unit
      const { sut, ix } = newTestService({ computeUnitPrice: price });
      const quote = await sut.quoteCreate(MIB, { epochs: 1 });
      const { computeUnitLimit } = withComputeBudget([quote.instruction], {
        computeUnits: new ComputeUnitEstimator(ix.programId),
        computeUnitPrice: price,
      });
      expect(computeUnitLimit).toBeGreaterThan(0);
      expect(quote.cost.lamports).toBe(RENT + 2 * LAMPORTS_PER_SIGNATURE + 2 * computeUnitLimit);
    });

    it('saves the tape keypair before sending, then makes the tape the active one', async () => {
      const { sut, ix, payer, chain, tapes, events, sent, saved, store } = newTestService();
      const quote = await sut.quoteCreate(MIB, { epochs: 5 });
      const address = ix.pdas.tape(quote.tapeKeypair.publicKey);
      chain.afterSend = () =>
        tapes.set(address.toBase58(), tapeRecord({ activeEpoch: 12, expiryEpoch: 17 }));

      events.length = 0;
      const created = await sut.create(quote);

      // The send is under the RPC watchdog from the moment it starts.
      expect(events).toEqual(['save', 'send', 'guarded', 'set active_tape']);
      expect(saved.get(address.toBase58())).toBe(quote.tapeKeypair);
      expect(sent).toEqual([
        {
          instructions: [quote.instruction],
          signers: [payer.publicKey, quote.tapeKeypair.publicKey],
        },
      ]);
      expect(store.active_tape).toBe(address.toBase58());
      expect(created).toEqual({
        address,
        label: expect.stringMatching(/^[a-z0-9]+$/),
        keypairPath: `/config/tapes/${address.toBase58()}.json`,
        activeEpoch: 12,
        expiryEpoch: 17,
      });
    });

    it('a failed send keeps the saved key and leaves the active tape alone', async () => {
      const { sut, chain, saved, store } = newTestService();
      const quote = await sut.quoteCreate(MIB, { epochs: 5 });
      chain.sendFails = new Error('blockhash expired');
      await expect(sut.create(quote)).rejects.toThrow('blockhash expired');
      expect(saved.size).toBe(1);
      expect(store.active_tape).toBeUndefined();
    });

    it('refuses what the wallet cannot pay before anything is saved or signed', async () => {
      const { sut, payer, chain, events } = newTestService();
      chain.balance = { lamports: 1_000_000_000, tokens: 1_000_000n };
      const quote = await sut.quoteCreate(102 * MIB, { epochs: 1000 });
      expect(quote.canPay).toBe(false);
      await expect(sut.create(quote)).rejects.toThrow(
        new CliError(
          `insufficient funds: this tape costs 102 storage tokens and about 0.00201 SOL; ` +
            `wallet ${payer.publicKey.toBase58()} has 1 storage tokens and 1 SOL ` +
            '(fix: fund the wallet, e.g. tape airdrop on a local network, or reserve less)',
        ),
      );
      expect(events).toEqual(['chainTime']);
    });
  });

  describe('extend', () => {
    it('pays the capacity for the added epochs and reports the new expiry', async () => {
      const tape = tapeRecord({ capacity: 3 * MIB, expiryEpoch: 20 });
      const { sut, tapeAddress, payer, chain, tapes, sent } = newTestService({ tape });
      chain.afterSend = () => tapes.set(tapeAddress!.toBase58(), { ...tape, expiryEpoch: 24 });

      const extended = await sut.extend({ epochs: 4 });

      expect(sent).toHaveLength(1);
      expect(sent[0].instructions[0].data[0]).toBe(Tag.ExtendTape);
      expect(sent[0].signers).toEqual([payer.publicKey]);
      expect(extended).toMatchObject({
        address: tapeAddress,
        addedEpochs: 4,
        tokens: 12_000n, // 3 MiB × 4 epochs × 1000
        activeEpoch: tape.activeEpoch,
        expiryEpoch: 24,
        now: chain.now,
      });
    });

    it('--duration adds whole epochs: 90 minutes are 2 of an hour', async () => {
      const { sut } = newTestService({ tape: tapeRecord() });
      expect((await sut.extend({ duration: 5400 })).addedEpochs).toBe(2);
    });

    it('refuses an expired tape, saying when it expired, and sends nothing', async () => {
      const { sut, tapeAddress, sent } = newTestService({
        tape: tapeRecord({ expiryEpoch: 12 }),
      });
      await expect(sut.extend({ epochs: 1 })).rejects.toThrow(
        new RegExp(`^tape ${tapeAddress!.toBase58()} expired`),
      );
      expect(sent).toEqual([]);
    });

    it('refuses what the wallet cannot pay, with the action named', async () => {
      const { sut, payer, chain, sent } = newTestService({ tape: tapeRecord() });
      chain.balance = { lamports: 1_000_000_000, tokens: 0n };
      await expect(sut.extend({ epochs: 4 })).rejects.toThrow(
        new CliError(
          'insufficient funds: extending the tape costs 0.012 storage tokens and about 0.000005 SOL; ' +
            `wallet ${payer.publicKey.toBase58()} has 0 storage tokens and 1 SOL ` +
            '(fix: fund the wallet, e.g. tape airdrop on a local network)',
        ),
      );
      expect(sent).toEqual([]);
    });
  });

  describe('resize', () => {
    it('pays the added MiB for the epochs the tape has left', async () => {
      const tape = tapeRecord({ capacity: 3 * MIB, expiryEpoch: 20, keptBytes: 700 });
      const { sut, tapeAddress, chain, tapes, sent } = newTestService({ tape });
      chain.afterSend = () => tapes.set(tapeAddress!.toBase58(), { ...tape, capacity: 5 * MIB });

      const resized = await sut.resize(2 * MIB);

      expect(sent[0].instructions[0].data[0]).toBe(Tag.ResizeTape);
      // 2 MiB × (20 − 12) epochs left × 1000.
      expect(resized).toEqual({
        address: tapeAddress,
        addedBytes: 2 * MIB,
        capacity: 5 * MIB,
        used: 700,
        tokens: 16_000n,
      });
    });

    it('reads the clock only to say when an expired tape expired', async () => {
      const ok = newTestService({ tape: tapeRecord() });
      await ok.sut.resize(MIB);
      expect(ok.events).not.toContain('chainTime');

      const expired = newTestService({ tape: tapeRecord({ expiryEpoch: 11 }) });
      await expect(expired.sut.resize(MIB)).rejects.toThrow(/expired/);
      expect(expired.events).toEqual(['chainTime']);
    });

    it('refuses a capacity past what a number holds exactly', async () => {
      const { sut, sent } = newTestService({
        tape: tapeRecord({ capacity: Number.MAX_SAFE_INTEGER - 10 }),
      });
      await expect(sut.resize(11)).rejects.toThrow(
        new CliError('resize: capacity would be too large'),
      );
      expect(sent).toEqual([]);
    });
  });
});
