import { Keypair } from '@solana/web3.js';
import { TapeRecord } from '../../chain/account-layouts';
import { ChainReader } from '../../chain/chain-reader';
import { GatewayIdentity } from '../../chain/gateway-identity';
import { labelFromAddress } from '../../chain/tape-label';
import { testTapeRecord } from '../../chain/tape-record.spec-support';
import { BalanceSource } from '../../chain/key-balance/balance-source';
import { KeyBalance } from '../../chain/key-balance/key-balance';
import {
  S3BackendAccessDeniedError,
  S3BackendInsufficientCapacityError,
  S3BackendTapeExpiredError,
  S3BackendUnpaidError,
} from '../s3-backend';
import { TapeDirectory } from './tape-directory';

/** The chain as the directory uses it: one tape record, an epoch, and a count of reads. */
class FakeChain {
  reads = 0;
  epoch = 10;
  constructor(public record: TapeRecord | null) {}

  async getTape(): Promise<TapeRecord | null> {
    this.reads++;
    return this.record && { ...this.record };
  }

  async currentEpoch(): Promise<number> {
    return this.epoch;
  }
}

/** The gateway key's balance, as the test sets it. */
class FakeBalance extends BalanceSource {
  lamports_ = 1_000_000_000;
  async lamports(): Promise<number> {
    return this.lamports_;
  }
}

function newTestDirectory(overrides: Partial<TapeRecord> = {}) {
  const gateway = new GatewayIdentity(Keypair.generate());
  const tape = Keypair.generate().publicKey;
  const record = testTapeRecord({
    delegate: gateway.publicKey,
    capacity: 1000,
    activeEpoch: 0,
    expiryEpoch: 20,
    createdAt: 1_700_000_000,
    // 100 bytes taken by the kept versions (`used` of the per-file tracks was removed in 1.2.0).
    keptBytes: 100,
    ...overrides,
  });
  const chain = new FakeChain(record);
  const funds = new FakeBalance();
  let now = 0;
  const balance = new KeyBalance(
    funds,
    gateway,
    { thresholdLamports: 18_000_000, perTransactionLamports: 5000, refreshMs: 30_000 },
    () => now,
  );
  const sut = new TapeDirectory(chain as unknown as ChainReader, gateway, balance);
  const later = (ms: number) => (now += ms);
  const bucket = {
    name: labelFromAddress(tape),
    tapeAddress: tape.toBase58(),
    createdAt: new Date(),
  };
  return { sut, chain, bucket, gateway, tape, funds, later };
}

describe('TapeDirectory', () => {
  it('refuses a write the gateway key cannot pay for, naming the key; takes it once funded', async () => {
    const { sut, bucket, gateway, funds, later, tape } = newTestDirectory();
    funds.lamports_ = 4999;
    const refusal = await sut.writable(bucket).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(S3BackendUnpaidError);
    expect((refusal as Error).message).toContain(`must fund ${gateway.publicKey.toBase58()}`);
    funds.lamports_ = 20_000_000;
    later(1000); // a short key is read again after a second, not after refresh_secs
    expect((await sut.writable(bucket)).address.equals(tape)).toBe(true);
  });

  it('finds a tape by its label, and nothing for a label of no tape or no label at all', async () => {
    const { sut, chain, tape } = newTestDirectory();
    const found = await sut.findByLabel(labelFromAddress(tape));
    expect(found?.bucket).toMatchObject({
      name: labelFromAddress(tape),
      tapeAddress: tape.toBase58(),
    });
    expect(found?.bucket.createdAt.toISOString()).toBe('2023-11-14T22:13:20.000Z');
    expect(await sut.findByLabel('not-a-label')).toBeNull();
    chain.record = null;
    expect(await sut.findByLabel(labelFromAddress(Keypair.generate().publicKey))).toBeNull();
  });

  it('a write check uses the record the bucket lookup just read (no second chain read)', async () => {
    const { sut, chain, bucket } = newTestDirectory();
    await sut.find(bucket.tapeAddress);
    await sut.writable(bucket, 900);
    expect(chain.reads).toBe(1);
  });

  it('a refusal from the cached record is confirmed on a fresh read (just delegated, resized)', async () => {
    const { sut, chain, bucket, gateway } = newTestDirectory({ delegate: null, capacity: 100 });
    await sut.find(bucket.tapeAddress);
    chain.record = { ...chain.record!, delegate: gateway.publicKey, capacity: 5000 };
    await expect(sut.writable(bucket, 2000)).resolves.toBeDefined();
    expect(chain.reads).toBe(2);
  });

  it('refuses an undelegated tape, naming the command with the gateway key', async () => {
    const other = Keypair.generate().publicKey;
    const { sut, bucket, gateway } = newTestDirectory({ delegate: other });
    await expect(sut.writable(bucket)).rejects.toThrow(S3BackendAccessDeniedError);
    await expect(sut.writable(bucket)).rejects.toThrow(
      `tape not delegated to this gateway (run: tape delegate ${gateway.publicKey.toBase58()})`,
    );
  });

  it('refuses bytes past the free space, and an expired tape for reads and writes', async () => {
    const { sut, chain, bucket } = newTestDirectory();
    await expect(sut.writable(bucket, 901)).rejects.toThrow(S3BackendInsufficientCapacityError);
    await expect(sut.writable(bucket, 901)).rejects.toThrow(
      '901 bytes do not fit in the 900 bytes free (100 of 1000 used)',
    );
    chain.epoch = 20;
    await expect(sut.writable(bucket)).rejects.toThrow(S3BackendTapeExpiredError);
    await expect(sut.readable(bucket)).rejects.toThrow(S3BackendTapeExpiredError);
  });

  it('a tape closed meanwhile is refused, not crashed on', async () => {
    const { sut, chain, bucket } = newTestDirectory();
    chain.record = null;
    await expect(sut.writable(bucket)).rejects.toThrow('the tape no longer exists');
  });
});
