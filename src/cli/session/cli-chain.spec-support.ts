import { ChainServices } from '../../chain/chain.module';
import { OnDemandChain } from '../../chain/on-demand-chain.module';
import { RecordingPrinter } from '../output/recording-printer';
import { CliChain } from './cli-chain';
import { CliTarget } from './cli-target';

/**
 * For specs: the real CliChain (its guard, its one-line chain errors) over stand-in chain
 * services, for a target at `rpcUrl`. `services` needs only what the code under test uses.
 */
export function testCliChain(services: object, rpcUrl = 'http://127.0.0.1:8899'): CliChain {
  const invocation = { rpcUrl, rpcUrlSetting: { source: 'flag' } };
  const target = {
    started: invocation,
    rpcUrl,
    chainConfig: () => ({}),
  } as unknown as CliTarget;
  const onDemand = { connect: () => services as ChainServices } as unknown as OnDemandChain;
  return new CliChain(target, onDemand, new RecordingPrinter());
}
