import { Injectable, Logger } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { ChainWriter } from '../chain/chain-writer';
import { TapeInstructions } from '../chain/tape-instructions';
import { GatewayIdentity } from '../chain/gateway-identity';
import { KeyBalance } from '../chain/key-balance/key-balance';

interface Waiter {
  track: PublicKey;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** How long a certification waits for others to share its transaction. */
const GATHER_MS = 5;
/** Certify instructions per batch (about 30 fit one transaction; the packer splits the rest). */
const MAX_BATCH = 120;

/**
 * Certifies tracks on chain with the gateway's storage-authority key. Uploads that finish
 * together share transactions: a 1,000-file deploy costs tens of transactions, not a thousand.
 */
@Injectable()
export class CertificationBatcher {
  private pending: Waiter[] = [];
  private timer?: NodeJS.Timeout;
  private readonly logger = new Logger('certification');

  constructor(
    private readonly writer: ChainWriter,
    private readonly ix: TapeInstructions,
    private readonly identity: GatewayIdentity,
    private readonly balance: KeyBalance,
  ) {}

  certify(track: PublicKey): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ track, resolve, reject });
      if (this.pending.length >= MAX_BATCH) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), GATHER_MS);
    });
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    void this.send(batch);
  }

  private async send(batch: Waiter[]): Promise<void> {
    const unique = new Map<string, PublicKey>();
    for (const w of batch) unique.set(w.track.toBase58(), w.track);
    const instructions = [...unique.values()].map((track) =>
      this.ix.certifyTrack({ storageAuthority: this.identity.publicKey, track }),
    );
    try {
      await this.writer.send(instructions, [this.identity.keypair], { ordered: false });
      for (const w of batch) w.resolve();
    } catch (err) {
      // Refused for want of SOL: the refusal that names the key to fund, not the chain's text.
      const reason = (await this.balance.explain(err)) as Error;
      this.logger.warn(`certifying ${unique.size} tracks failed: ${reason.message}`);
      for (const w of batch) w.reject(reason);
    }
  }
}
