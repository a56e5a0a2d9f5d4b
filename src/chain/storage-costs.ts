import { NetworkConfig, TAPE_SIZE } from './account-layouts';
import { ChainReader } from './chain-reader';
import { ChainRpc } from './chain-rpc';
import { LAMPORTS_PER_SIGNATURE } from './program-ids';
import { storageCost } from './storage-pricing';

export interface CreateCostEstimate {
  /** Exact storage-token cost (base units). */
  tokens: bigint;
  /** Estimated lamports: rent for the tape account plus transaction fees. */
  lamports: number;
  currentEpoch: number;
  config: NetworkConfig;
}

/** What writes cost on the connected network: storage tokens (exact) and rent (asked of the RPC). */
export class StorageCosts {
  constructor(
    private readonly rpc: ChainRpc,
    private readonly reader: ChainReader,
  ) {}

  async estimateCreate(capacity: number, epochs: number): Promise<CreateCostEstimate> {
    const [config, currentEpoch, rent] = await Promise.all([
      this.reader.networkConfig(),
      this.reader.currentEpoch(),
      this.rentExempt(TAPE_SIZE),
    ]);
    return {
      tokens: storageCost(capacity, epochs, config.pricePerMibEpoch),
      // CreateTape is signed by the payer and the tape keypair.
      lamports: rent + 2 * LAMPORTS_PER_SIGNATURE,
      currentEpoch,
      config,
    };
  }

  /** Lamports an account of `dataLength` bytes needs to be rent-exempt. */
  async rentExempt(dataLength: number): Promise<number> {
    return this.rpc.call((c) => c.getMinimumBalanceForRentExemption(dataLength));
  }
}
