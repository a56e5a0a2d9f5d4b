import { Injectable, Module, OnModuleDestroy } from '@nestjs/common';
import { ChainConfig } from '../config/chain.config';
import { ChainServices } from './chain.module';
import { ResendingSenders } from './resending-senders';

/**
 * The chain services of a root whose ChainConfig is known only after start-up (the CLI's: the
 * RPC URL, program id and priority fee come from the command's options, which nest-commander
 * parses after it has built every provider). `connect` builds them on first use, one set and so
 * one Connection per process; the module closes it when the app closes. Nothing connects if
 * nothing asks (`tape config get`, `tape keygen`).
 */
@Injectable()
export class OnDemandChain implements OnModuleDestroy {
  private services?: { config: ChainConfig; chain: ChainServices };

  connect(config: ChainConfig): ChainServices {
    if (this.services && this.services.config !== config) {
      throw new Error('OnDemandChain: already connected to another chain');
    }
    this.services ??= { config, chain: new ChainServices(config) };
    return this.services.chain;
  }

  /** Closes the Connection's WebSocket (web3.js would retry it for ever). */
  onModuleDestroy(): void {
    this.services?.chain.close();
  }
}

/**
 * The CLI's chain: ChainModule's services without its start-up connection (OnDemandChain), and
 * the senders of `tape network deploy` and `init` (ResendingSenders).
 */
@Module({
  providers: [OnDemandChain, ResendingSenders],
  exports: [OnDemandChain, ResendingSenders],
})
export class OnDemandChainModule {}
