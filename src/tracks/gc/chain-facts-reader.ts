import { PublicKey } from '@solana/web3.js';
import type { ChainReader } from '../../chain/chain-reader';
import type { TrackReference } from '../track-store';
import type { ChainFacts } from './track-gc-decision';
import { parseStagingOwner, parseVersionOwner } from './version-owner';

/**
 * The collector's one chain read per batch of references: the tape accounts they name
 * (getMultipleAccounts, no listing), the network config and chain time, for the pure verdicts
 * of track-gc-decision.ts. Owners name their tape; a reference under an unknown owner is
 * judged without the chain, so it adds no tape to read.
 */
export async function readChainFacts(
  chain: Pick<ChainReader, 'getTapes' | 'networkConfig' | 'chainTime'>,
  refs: TrackReference[],
): Promise<ChainFacts> {
  const addresses = new Set<string>();
  for (const ref of refs) {
    const owner = parseVersionOwner(ref.track) ?? parseStagingOwner(ref.track);
    if (owner) addresses.add(owner.tape);
  }
  const tapeAddresses = [...addresses];
  const [tapes, config, chainNow] = await Promise.all([
    chain.getTapes(tapeAddresses.map((a) => new PublicKey(a))),
    chain.networkConfig(),
    chain.chainTime(),
  ]);
  return {
    tapes: new Map(tapeAddresses.map((a, i) => [a, tapes[i]])),
    chainNow,
    genesisTime: config.genesisTime,
    epochDurationSecs: config.epochDurationSecs,
  };
}
