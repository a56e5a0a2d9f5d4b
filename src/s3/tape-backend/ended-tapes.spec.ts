import { Keypair, PublicKey } from '@solana/web3.js';
import type { TapeRecord } from '../../chain/account-layouts';
import type { ChainReader } from '../../chain/chain-reader';
import { ChainEndedTapes } from './ended-tapes';

/** The two reads ChainEndedTapes makes, from a map of tapes and a current epoch. */
function newTestEndedTapes(tapes: Map<string, Pick<TapeRecord, 'expiryEpoch'>>, epoch: number) {
  const chain = {
    getTapes: async (addresses: PublicKey[]) =>
      addresses.map((a) => (tapes.get(a.toBase58()) as TapeRecord | undefined) ?? null),
    currentEpoch: async () => epoch,
  } as unknown as ChainReader;
  return { sut: new ChainEndedTapes(chain) };
}

describe('ChainEndedTapes', () => {
  it('names the tapes whose expiry epoch has come and those that are gone, keeps the active', async () => {
    const [active, lastEpoch, expired, gone] = [0, 1, 2, 3].map(() =>
      Keypair.generate().publicKey.toBase58(),
    );
    const { sut } = newTestEndedTapes(
      new Map([
        [active, { expiryEpoch: 12 }],
        [lastEpoch, { expiryEpoch: 11 }],
        [expired, { expiryEpoch: 10 }],
      ]),
      10,
    );
    expect(await sut.among([active, lastEpoch, expired, gone])).toEqual([expired, gone]);
    expect(await sut.among([])).toEqual([]);
  });
});
