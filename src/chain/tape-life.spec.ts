import { Keypair } from '@solana/web3.js';
import type { TapeRecord } from './account-layouts';
import { tapeLife } from './tape-life';

const clock = { genesisTime: 1_000, epochDurationSecs: 10 };
const tape = (expiryEpoch: number) =>
  ({ owner: Keypair.generate().publicKey, expiryEpoch }) as unknown as TapeRecord;

describe('tapeLife: the program’s rule, active until the expiry epoch starts', () => {
  it('is active before the expiry epoch starts, with the time left on the chain clock', () => {
    expect(tapeLife(tape(5), clock, 1_049)).toEqual({ kind: 'active', expiresInMs: 1_000 });
  });

  it('is expired from the first second of the expiry epoch', () => {
    expect(tapeLife(tape(5), clock, 1_050)).toEqual({ kind: 'expired' });
    expect(tapeLife(tape(5), clock, 9_999)).toEqual({ kind: 'expired' });
  });

  it('is unknown without a tape record', () => {
    expect(tapeLife(null, clock, 0)).toEqual({ kind: 'unknown' });
  });
});
