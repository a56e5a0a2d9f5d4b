import { PublicKey } from '@solana/web3.js';
import { AppConfig } from '../config/app-config';
import type { LocalnetOptions } from './localnet';
import { localnetLimits } from './localnet-limits';

/**
 * startLocalnet's options from the configuration, standalone (`npm run localnet`) and embedded
 * in the gateway alike: `localnet.*`, `storage.data_dir`, `chain.program_id`. The caller adds
 * where its events go.
 */
export function localnetOptions(config: AppConfig, storageAuthority: PublicKey): LocalnetOptions {
  return {
    dataDir: config.storage.data_dir,
    host: config.localnet.host,
    port: config.localnet.port,
    epochDurationSecs: config.localnet.epoch_duration_secs,
    pricePerMibEpoch: config.localnet.price_per_mib_epoch,
    slotMs: config.localnet.slot_ms,
    storageAuthority,
    // Genesis deploys the tape program at the configured id (chain.program_id, TAPE_PROGRAM_ID).
    programId: config.chain.program_id ? new PublicKey(config.chain.program_id) : undefined,
    ...localnetLimits(config.localnet),
  };
}
