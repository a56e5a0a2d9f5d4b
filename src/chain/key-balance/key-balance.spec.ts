import { Logger } from '@nestjs/common';
import { Keypair } from '@solana/web3.js';
import { ChainError, INSUFFICIENT_FUNDS } from '../chain-error';
import { GatewayIdentity } from '../gateway-identity';
import { validateConfig } from '../../config/config-loader';
import { BalanceSource } from './balance-source';
import { KeyBalance } from './key-balance';
import { keyBalanceLimits, perTransactionLamports, solText } from './key-balance-limits';
import { StorageAuthorityUnfundedError } from './key-unfunded-error';

/** The chain's answer for the key's balance, as the test sets it, and how often it was asked. */
class FakeBalance extends BalanceSource {
  reads = 0;
  constructor(public value: number | Error) {
    super();
  }
  async lamports(): Promise<number> {
    this.reads++;
    if (this.value instanceof Error) throw this.value;
    return this.value;
  }
}

const LIMITS = { thresholdLamports: 18_000_000, perTransactionLamports: 5000, refreshMs: 30_000 };

function newTestBalance(lamports: number | Error, role: 'writer' | 'reader' = 'writer') {
  const identity = new GatewayIdentity(Keypair.generate(), role);
  const source = new FakeBalance(lamports);
  const clock = { now: 0 };
  const sut = new KeyBalance(source, identity, LIMITS, () => clock.now);
  return { sut, source, clock, key: identity.publicKey.toBase58() };
}

describe('KeyBalance', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('is degraded below an hour of fees, with a reason naming the key and both amounts', async () => {
    const { sut, key } = newTestBalance(17_999_999);
    expect(await sut.degradedReason()).toBe(
      `the storage-authority key ${key} holds 0.017999999 SOL, less than 0.018 SOL ` +
        `(an hour of expected fees, gateway.key_balance): fund ${key}`,
    );
    await expect(sut.assertCanPay()).resolves.toBeUndefined(); // it can still pay for a write
    // The first reading (start-up's) below the threshold is a warning naming the key.
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatchObject({ event: 'key_balance_low', key });
  });

  it('refuses a write it cannot pay for, and takes it once funded, without a restart', async () => {
    const { sut, source, clock, key } = newTestBalance(0);
    const refusal = await sut.assertCanPay().catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(StorageAuthorityUnfundedError);
    expect((refusal as Error).message).toBe(
      `the gateway cannot pay for this write: its storage-authority key ${key} holds 0 SOL, ` +
        `less than the 0.000005 SOL one transaction costs; the gateway's operator must fund ${key}`,
    );
    expect(await sut.degradedReason()).toMatch(/cannot pay for one transaction/);
    source.value = 1_000_000_000;
    clock.now += 999; // remembered for a second while short
    await expect(sut.assertCanPay()).rejects.toThrow(StorageAuthorityUnfundedError);
    clock.now += 1;
    await expect(sut.assertCanPay()).resolves.toBeUndefined();
    expect(await sut.degradedReason()).toBeNull();
  });

  it('reads a funded key once per refresh, and concurrent callers share one read', async () => {
    const { sut, source, clock } = newTestBalance(1_000_000_000);
    await Promise.all([sut.current(), sut.current(), sut.degradedReason(), sut.assertCanPay()]);
    expect(source.reads).toBe(1);
    clock.now += 29_999;
    await sut.current();
    expect(source.reads).toBe(1);
    clock.now += 1;
    await sut.current();
    expect(source.reads).toBe(2);
  });

  it('warns once when the key runs short and says when it is funded again', async () => {
    const { sut, source, clock, key } = newTestBalance(1_000_000_000);
    const info = jest.spyOn(Logger.prototype, 'log');
    await sut.refresh();
    expect(warn).not.toHaveBeenCalled();
    source.value = 1000;
    await sut.refresh();
    await sut.refresh();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatchObject({ event: 'key_balance_low', key, lamports: 1000 });
    source.value = 20_000_000;
    clock.now += 1000;
    await sut.current();
    expect(info.mock.calls[0][0]).toMatchObject({ event: 'key_balance_ok', key });
  });

  it('refuses nothing and degrades nothing when the balance cannot be read, or on a reader', async () => {
    const unreadable = newTestBalance(new ChainError('unreachable', 'cannot reach the chain RPC'));
    expect(await unreadable.sut.degradedReason()).toBeNull();
    await expect(unreadable.sut.assertCanPay()).resolves.toBeUndefined();
    const reader = newTestBalance(0, 'reader');
    expect(await reader.sut.degradedReason()).toBeNull();
    await expect(reader.sut.assertCanPay()).resolves.toBeUndefined();
    expect(reader.source.reads).toBe(0);
  });

  it('explains a transaction refused for want of SOL as the refusal naming the key, from a fresh read', async () => {
    const { sut, source, key } = newTestBalance(1_000_000_000);
    await sut.current();
    source.value = 7000; // above one fee: the rent of an S3 write was what it lacked
    const explained = await sut.explain(new ChainError('transaction', INSUFFICIENT_FUNDS));
    expect(explained).toBeInstanceOf(StorageAuthorityUnfundedError);
    expect((explained as Error).message).toBe(
      `the gateway cannot pay for this write: its storage-authority key ${key} holds ` +
        `0.000007 SOL, not enough for its fees and rent; the gateway's operator must fund ${key}`,
    );
    const other = new ChainError('timeout', 'transaction not confirmed in time');
    expect(await sut.explain(other)).toBe(other);
  });
});

describe('key balance limits', () => {
  it('defaults to an hour of one-signature transactions, one a second: 0.018 SOL', () => {
    const config = validateConfig({});
    expect(keyBalanceLimits(config.gateway.key_balance, config.chain)).toEqual({
      thresholdLamports: 18_000_000,
      perTransactionLamports: 5000,
      refreshMs: 30_000,
    });
  });

  it('counts the priority fee on the compute-unit maximum, and takes an explicit threshold', () => {
    expect(perTransactionLamports(1000)).toBe(5000 + 1400);
    const config = validateConfig({
      gateway: { key_balance: { transactions_per_hour: 100, refresh_secs: 5 } },
      chain: { compute_unit_price: 1000 },
    });
    expect(keyBalanceLimits(config.gateway.key_balance, config.chain)).toEqual({
      thresholdLamports: 640_000,
      perTransactionLamports: 6400,
      refreshMs: 5000,
    });
    const fixed = validateConfig({ gateway: { key_balance: { min_lamports: 1_000_000_000 } } });
    expect(keyBalanceLimits(fixed.gateway.key_balance, fixed.chain).thresholdLamports).toBe(1e9);
  });

  it('refuses nonsense naming the key', () => {
    expect(() => validateConfig({ gateway: { key_balance: { min_lamports: -1 } } })).toThrow(
      'gateway.key_balance.min_lamports',
    );
    expect(() => validateConfig({ gateway: { key_balance: { refresh_secs: 0 } } })).toThrow(
      'gateway.key_balance.refresh_secs',
    );
    expect(() => validateConfig({ gateway: { key_balance: { per_hour: 1 } } })).toThrow(
      'gateway.key_balance.per_hour',
    );
  });

  it('writes SOL exactly', () => {
    expect([solText(0), solText(5000), solText(18_000_000), solText(2_500_000_000)]).toEqual([
      '0',
      '0.000005',
      '0.018',
      '2.5',
    ]);
  });
});
