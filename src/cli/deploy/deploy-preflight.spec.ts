import { Keypair } from '@solana/web3.js';
import { TapeRecord } from '../../chain/account-layouts';
import { atVersion, testTapeRecord } from '../../chain/tape-record.spec-support';
import { parseSize } from '../input/size-parser';
import {
  assertCanPay,
  assertCapacity,
  assertTapeActive,
  assertVersionCapacity,
} from './deploy-preflight';

const tape = (over: Partial<TapeRecord> = {}): TapeRecord =>
  testTapeRecord({ capacity: 1024 * 1024, activeEpoch: 10, expiryEpoch: 20, ...over });

describe('deploy preflight', () => {
  it('refuses an expired tape, saying what is still possible (not tape extend)', () => {
    expect(() => assertTapeActive(tape(), 19)).not.toThrow();
    const address = Keypair.generate().publicKey;
    const clock = { genesisTime: 0, epochDurationSecs: 3600 };
    expect(() =>
      assertTapeActive(tape(), 20, { address, clock, nowUnix: 20 * 3600 + 7200 }),
    ).toThrow(
      `tape ${address.toBase58()} expired about 2 hours ago (epoch 20, ~1970-01-01 20:00 UTC): ` +
        'it cannot be extended, resized or written to, and its site answers 410 Gone; ' +
        'no new version can be published (tape deploy and tape object rm are refused). ' +
        'To publish the site again, reserve a new tape and deploy there: ' +
        'tape create --capacity <size> --duration <time>, then tape deploy',
    );
  });

  it('names the missing bytes exactly and a resize that covers them', () => {
    expect(() => assertCapacity(tape(), 1024 * 1024 - 1000, 1000)).not.toThrow();
    let message = '';
    try {
      assertCapacity(tape(), 2 * 1024 * 1024, 1000);
    } catch (err) {
      message = (err as Error).message;
    }
    const missing = 1000 + 2 * 1024 * 1024 - 1024 * 1024;
    expect(message).toBe(
      `insufficient capacity: need ${missing} more bytes (fix: tape resize --add 2m)`,
    );
    expect(parseSize('2m')).toBeGreaterThanOrEqual(missing);
  });

  it('says what the wallet has and needs', () => {
    const wallet = Keypair.generate().publicKey;
    expect(() => assertCanPay(wallet, 10, 10, 'x')).not.toThrow();
    expect(() => assertCanPay(wallet, 1_000_000, 2_000_000, 'this deploy')).toThrow(
      `insufficient funds: this deploy needs about 0.002 SOL, wallet ${wallet.toBase58()} has 0.001 SOL`,
    );
  });

  it("counts the current version's bytes, which the tape keeps after the Publish", () => {
    const published = tape(atVersion(3, Buffer.alloc(32, 1), 1000));
    expect(() => assertVersionCapacity(published, 1024 * 1024 - 1000)).not.toThrow();
    expect(() => assertVersionCapacity(published, 1024 * 1024 - 999)).toThrow(
      'insufficient capacity: need 1 more bytes',
    );
    // Before the first version nothing is kept.
    expect(() => assertVersionCapacity(tape(), 1024 * 1024)).not.toThrow();
  });
});
