import { Logger, Module, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { HealthModule } from '../health/health.module';
import { PublicKey } from '@solana/web3.js';
import { ChainConfig } from '../config/chain.config';
import { HealthRegistry } from '../health/health-registry';
import { ChainFaucet } from './chain-faucet';
import { ChainReader } from './chain-reader';
import { ChainRpc } from './chain-rpc';
import { ChainWriter } from './chain-writer';
import { ComputeUnitEstimator } from './compute-units';
import { GatewayIdentityModule } from './gateway-identity.module';
import { DEFAULT_TAPE_PROGRAM_ID } from './program-ids';
import { StorageCosts } from './storage-costs';
import { TapeInstructions } from './tape-instructions';

/**
 * The chain services of one RPC endpoint, wired here and only here: one Connection (ChainRpc),
 * the program's instructions and addresses, the reader, the writer, the faucet and the costs.
 * ChainModule provides each of them to the gateway; OnDemandChainModule gives the CLI one set
 * for the ChainConfig of its command's options (on-demand-chain.module.ts); tests and benchmarks
 * build one set per endpoint and `close` it when done.
 */
export class ChainServices {
  readonly rpc: ChainRpc;
  /** The tape program's instructions; `ix.programId`, `ix.pdas` for its addresses. */
  readonly ix: TapeInstructions;
  readonly reader: ChainReader;
  readonly writer: ChainWriter;
  readonly faucet: ChainFaucet;
  readonly costs: StorageCosts;

  constructor(config: ChainConfig) {
    this.rpc = ChainRpc.fromConfig(config);
    const programId = config.program_id
      ? new PublicKey(config.program_id)
      : DEFAULT_TAPE_PROGRAM_ID;
    this.ix = new TapeInstructions(programId);
    this.reader = new ChainReader(this.rpc, this.ix);
    this.writer = new ChainWriter(this.rpc, {
      computeUnits: new ComputeUnitEstimator(programId),
      computeUnitPrice: config.computeUnitPrice,
    });
    this.faucet = new ChainFaucet(this.rpc);
    this.costs = new StorageCosts(this.rpc, this.reader);
  }

  /** Closes the Connection's WebSocket (web3.js would retry it for ever). */
  close(): void {
    this.rpc.close();
  }
}

const fromServices = <T>(
  token: abstract new (...args: never[]) => T,
  pick: (s: ChainServices) => T,
) => ({
  provide: token,
  useFactory: pick,
  inject: [ChainServices],
});

/** Longest start-up wait for the chain's first answers. */
const WARM_UP_MS = 2000;

/** The chain for the gateway: each chain service, plus the gateway's own key. */
@Module({
  imports: [HealthModule, GatewayIdentityModule],
  providers: [
    {
      provide: ChainServices,
      useFactory: (c: ChainConfig) => new ChainServices(c),
      inject: [ChainConfig],
    },
    // ChainRpc closes the WebSocket when the app shuts down (its onModuleDestroy).
    fromServices(ChainRpc, (s) => s.rpc),
    fromServices(TapeInstructions, (s) => s.ix),
    fromServices(ChainReader, (s) => s.reader),
    fromServices(ChainWriter, (s) => s.writer),
    fromServices(ChainFaucet, (s) => s.faucet),
    fromServices(StorageCosts, (s) => s.costs),
  ],
  exports: [
    ChainRpc,
    TapeInstructions,
    ChainReader,
    ChainWriter,
    ChainFaucet,
    StorageCosts,
    GatewayIdentityModule,
  ],
})
export class ChainModule implements OnModuleInit, OnApplicationBootstrap {
  constructor(
    private readonly rpc: ChainRpc,
    private readonly reader: ChainReader,
    private readonly health: HealthRegistry,
  ) {}

  onModuleInit(): void {
    this.health.register('chain', () => this.rpc.ping());
  }

  /**
   * Before the gateway listens: the first request of a fresh process would otherwise also pay
   * for the network config, the chain clock and the connection's first use. Bounded, and a
   * chain that does not answer only delays start-up by that much (/healthz reports it).
   */
  async onApplicationBootstrap(): Promise<void> {
    const warm = this.reader
      .networkConfig()
      .then(() => this.reader.chainTime())
      .then(
        () => undefined,
        (err: unknown) =>
          new Logger('chain').warn(`chain not answering at start-up: ${(err as Error).message}`),
      );
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, WARM_UP_MS).unref());
    await Promise.race([warm, timeout]);
  }
}
