import { Keypair } from '@solana/web3.js';
import { TapeRecord, NO_VERSION } from '../../chain/account-layouts';
import { parseSize } from '../input/size-parser';
import { assertCanPay, assertCapacity, assertTapeActive, deployLamports } from './deploy-preflight';
import { DeployPlan } from './deploy-planner';

const tape = (over: Partial<TapeRecord> = {}): TapeRecord => ({
  authority: Keypair.generate().publicKey,
  delegate: null,
  capacity: 1024 * 1024,
  used: 0,
  activeEpoch: 10,
  expiryEpoch: 20,
  createdAt: 0,
  nameCount: 0,
  trackCount: 0,
  payer: Keypair.generate().publicKey,
  ...NO_VERSION,
  ...over,
});

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
    expect(() => assertCapacity(tape({ used: 1000 }), 1024 * 1024 - 1000)).not.toThrow();
    let message = '';
    try {
      assertCapacity(tape({ used: 1000 }), 2 * 1024 * 1024);
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

  it('prices rent for new tracks and new names plus two signatures per transaction', async () => {
    // Solana's rule: (128 + bytes) x 3480 x 2 lamports.
    const rent = async (bytes: number) => (128 + bytes) * 6960;
    const plan = {
      toWrite: [{ contentType: 'text/html' }, { contentType: 'image/png' }],
      publish: [
        { name: 'a.html', contentType: 'text/html', current: undefined },
        { name: 'b.png', contentType: 'image/png', current: { track: null } },
      ],
      entry: { name: 'index.html', contentType: 'text/html', current: undefined },
    } as unknown as DeployPlan;
    const expected =
      3 * 2 * 5000 +
      (128 + 88 + 9) * 6960 +
      (128 + 88 + 9) * 6960 +
      (128 + 117 + 9 + 6) * 6960 +
      (128 + 117 + 9 + 10) * 6960;
    expect(await deployLamports(plan, 3, rent)).toBe(expected);
  });
});
