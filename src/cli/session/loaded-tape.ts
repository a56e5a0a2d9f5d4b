import { PublicKey } from '@solana/web3.js';
import { TapeRecord } from '../../chain/account-layouts';

/** The tape a command acts on, as the chain holds it. */
export interface LoadedTape {
  address: PublicKey;
  record: TapeRecord;
}
