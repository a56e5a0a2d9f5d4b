import { Keypair } from '@solana/web3.js';
import { TapeRecord } from '../../chain/account-layouts';
import { expiryWarning, expiryWarningSecs } from './expiry-notice';

const HOUR = 3600;
const DAY = 86_400;
const address = Keypair.generate().publicKey;
/** A tape reserved from epoch 0 for `epochs` epochs of `epochSecs`, on a clock from 0. */
const tape = (epochs: number, epochSecs: number) => ({
  record: { activeEpoch: 0, expiryEpoch: epochs } as TapeRecord,
  clock: { genesisTime: 0, epochDurationSecs: epochSecs },
  endsAt: epochs * epochSecs,
});

describe('expiry warnings', () => {
  it('warn within a day, or within a tenth of the reservation when that is shorter', () => {
    const month = tape(30, DAY);
    expect(expiryWarningSecs(month.record, month.clock)).toBe(DAY);
    const twoHours = tape(2, HOUR);
    expect(expiryWarningSecs(twoHours.record, twoHours.clock)).toBe(720);
    const fiveDays = tape(5, DAY);
    expect(expiryWarningSecs(fiveDays.record, fiveDays.clock)).toBe(DAY / 2);
  });

  it('say nothing before the threshold, warn inside it, and leave expired tapes to their error', () => {
    const { record, clock, endsAt } = tape(30, DAY);
    expect(expiryWarning(address, record, clock, endsAt - DAY - 1)).toBeUndefined();
    expect(expiryWarning(address, record, clock, endsAt - 3 * HOUR)).toBe(
      `warning: tape ${address.toBase58()} expires in about 3 hours (~1970-01-31 00:00 UTC); ` +
        'extend it before then (tape extend --duration <time>): an expired tape cannot be ' +
        'extended and its site stops (410 Gone)',
    );
    expect(expiryWarning(address, record, clock, endsAt)).toBeUndefined();
    const short = tape(2, HOUR);
    expect(expiryWarning(address, short.record, short.clock, short.endsAt - 721)).toBeUndefined();
    expect(expiryWarning(address, short.record, short.clock, short.endsAt - 600)).toMatch(
      /expires in about 10 minutes/,
    );
  });
});
