import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { ChainReader } from '../../chain/chain-reader';

/**
 * Port: which of these tapes have ended (expired, or closed and gone), so the multipart uploads
 * they still hold in the spool can be removed at once instead of at `upload_expiry_hours`.
 */
export abstract class EndedTapes {
  /** The ended ones among `tapeAddresses`; rejects when the chain cannot be read. */
  abstract among(tapeAddresses: string[]): Promise<string[]>;
}

/** Read from the chain: one getMultipleAccounts per 100 tapes, and the current epoch. */
@Injectable()
export class ChainEndedTapes extends EndedTapes {
  constructor(private readonly chain: ChainReader) {
    super();
  }

  async among(tapeAddresses: string[]): Promise<string[]> {
    if (tapeAddresses.length === 0) return [];
    const records = await this.chain.getTapes(tapeAddresses.map((t) => new PublicKey(t)));
    const epoch = await this.chain.currentEpoch();
    return tapeAddresses.filter((_, i) => {
      const record = records[i];
      // The same rule as a write's (TapeDirectory): from its expiry epoch on, a tape is over.
      return record === null || epoch >= record.expiryEpoch;
    });
  }
}
