import { Keypair, PublicKey } from '@solana/web3.js';
import { TapeRecord } from '../../chain/account-layouts';
import { testNetworkConfig, testTapeRecord } from '../../chain/tape-record.spec-support';
import type { TrackReference } from '../track-store';
import { readChainFacts } from './chain-facts-reader';
import { stagingOwner, versionOwner } from './version-owner';

const ref = (track: string): TrackReference => ({
  track,
  tape: 'recorded-tape',
  role: 'track',
  size: 1,
  recordedAt: 0,
});

/** A reader whose tapes the test sets, recording which addresses each getTapes asked for. */
function newTestReader(tapes: Map<string, TapeRecord>) {
  const asked: string[][] = [];
  const chain = {
    getTapes: (addresses: PublicKey[]) => {
      asked.push(addresses.map((a) => a.toBase58()));
      return Promise.resolve(addresses.map((a) => tapes.get(a.toBase58()) ?? null));
    },
    networkConfig: () =>
      Promise.resolve(testNetworkConfig({ genesisTime: 1_600_000_000, epochDurationSecs: 60 })),
    chainTime: () => Promise.resolve(1_700_000_000),
  };
  return { chain, asked };
}

describe('readChainFacts', () => {
  it('reads each tape the owners name once, in one request, with the clock and the epochs', async () => {
    const a = Keypair.generate().publicKey;
    const b = Keypair.generate().publicKey;
    const gone = Keypair.generate().publicKey;
    const recordA = testTapeRecord({ expiryEpoch: 7 });
    const { chain, asked } = newTestReader(new Map([[a.toBase58(), recordA]]));

    const facts = await readChainFacts(chain, [
      ref(versionOwner(a, 1, Buffer.alloc(32, 1))),
      ref(versionOwner(a, 2, Buffer.alloc(32, 2))),
      ref(stagingOwner(a, 2)),
      ref(stagingOwner(b, 0)),
      ref(versionOwner(gone, 3, Buffer.alloc(32, 3))),
      // A per-file Track account's address names no tape: judged without the chain.
      ref(Keypair.generate().publicKey.toBase58()),
    ]);

    expect(asked).toEqual([[a.toBase58(), b.toBase58(), gone.toBase58()]]);
    expect(facts).toEqual({
      tapes: new Map([
        [a.toBase58(), recordA],
        [b.toBase58(), null],
        [gone.toBase58(), null],
      ]),
      chainNow: 1_700_000_000,
      genesisTime: 1_600_000_000,
      epochDurationSecs: 60,
    });
  });

  it('asks for no tape when no owner names one', async () => {
    const { chain, asked } = newTestReader(new Map());
    const facts = await readChainFacts(chain, [ref(Keypair.generate().publicKey.toBase58())]);
    expect(asked).toEqual([[]]);
    expect(facts.tapes.size).toBe(0);
  });
});
