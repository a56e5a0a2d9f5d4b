import bs58 from 'bs58';
import { Bank } from '../bank/bank';
import { minimumBalance, MAX_ACCOUNT_DATA_LENGTH } from '../transactions/rent';
import { RpcError, SolanaErrorCode } from './rpc-error';
import { FEATURE_SET, RpcHandlers, SOLANA_CORE_VERSION, withContext } from './rpc-handler';
import { configParam, required, stringParam, unsignedParam } from './rpc-params';

/** Solana's epoch schedule (its epochs, not the tape program's storage epochs). */
const SLOTS_PER_EPOCH = 432_000;

/** Slots, blocks, blockhashes, epochs, fees and node facts. */
export class ClusterMethods {
  constructor(
    private readonly bank: Bank,
    private readonly identity: string,
  ) {}

  handlers(): RpcHandlers {
    const bank = this.bank;
    return {
      getLatestBlockhash: (p) => {
        configParam(p, 0, bank.slot);
        return withContext(bank, {
          blockhash: bank.latestBlockhash,
          lastValidBlockHeight: bank.lastValidBlockHeight,
        });
      },
      isBlockhashValid: (p) => {
        const hash = stringParam(required(p, 0, 'blockhash'), 'blockhash');
        let bytes: Uint8Array;
        try {
          bytes = bs58.decode(hash);
        } catch {
          throw RpcError.invalidParam('Invalid');
        }
        if (bytes.length !== 32) throw RpcError.invalidParam('Invalid');
        configParam(p, 1, bank.slot);
        return withContext(bank, bank.isBlockhashValid(hash));
      },
      getBlockHeight: (p) => (configParam(p, 0, bank.slot), bank.blockHeight),
      getSlot: (p) => (configParam(p, 0, bank.slot), bank.slot),
      getTransactionCount: (p) => (configParam(p, 0, bank.slot), bank.transactionCount),
      getBlockTime: (p) => {
        const slot = unsignedParam(required(p, 0, 'slot'), 'slot');
        const time = bank.blockTime(slot);
        if (time === null) {
          throw new RpcError(
            SolanaErrorCode.BlockNotAvailable,
            `Block not available for slot ${slot}`,
          );
        }
        return time;
      },
      getEpochInfo: (p) => {
        configParam(p, 0, bank.slot);
        return {
          absoluteSlot: bank.slot,
          blockHeight: bank.blockHeight,
          epoch: Math.floor(bank.slot / SLOTS_PER_EPOCH),
          slotIndex: bank.slot % SLOTS_PER_EPOCH,
          slotsInEpoch: SLOTS_PER_EPOCH,
          transactionCount: bank.transactionCount,
        };
      },
      getEpochSchedule: () => ({
        firstNormalEpoch: 0,
        firstNormalSlot: 0,
        leaderScheduleSlotOffset: SLOTS_PER_EPOCH,
        slotsPerEpoch: SLOTS_PER_EPOCH,
        warmup: false,
      }),
      getMinimumBalanceForRentExemption: (p) => {
        const length = unsignedParam(required(p, 0, 'data length'), 'data length');
        if (length > MAX_ACCOUNT_DATA_LENGTH) {
          throw RpcError.invalidParams(`data length exceeds ${MAX_ACCOUNT_DATA_LENGTH} bytes`);
        }
        configParam(p, 1, bank.slot);
        return minimumBalance(length);
      },
      getRecentPrioritizationFees: () => [],
      getVersion: () => ({ 'feature-set': FEATURE_SET, 'solana-core': SOLANA_CORE_VERSION }),
      getHealth: () => 'ok',
      getGenesisHash: () => bank.genesisHash,
      getIdentity: () => ({ identity: this.identity }),
      getFirstAvailableBlock: () => 0,
    };
  }
}
