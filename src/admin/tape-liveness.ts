import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { ChainReader } from '../chain/chain-reader';
import { TapeLife, tapeLife } from '../chain/tape-life';

/**
 * Is this tape there and active? The port the TLS ask reads the chain through, so its spec can
 * hand in a deliberately simple fake. Throws (ChainError) when the chain cannot be read.
 */
export abstract class TapeLiveness {
  abstract of(tape: string): Promise<TapeLife>;
}

/** Production: the tape record from the chain; the network config and clock are cached there. */
@Injectable()
export class ChainTapeLiveness extends TapeLiveness {
  constructor(private readonly chain: ChainReader) {
    super();
  }

  async of(tape: string): Promise<TapeLife> {
    const [record, config, now] = await Promise.all([
      this.chain.getTape(new PublicKey(tape)),
      this.chain.networkConfig(),
      this.chain.chainTime(),
    ]);
    return tapeLife(record, config, now);
  }
}
