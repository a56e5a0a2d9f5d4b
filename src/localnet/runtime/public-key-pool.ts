import { PublicKey } from '@solana/web3.js';

const MAX_POOLED = 1024;

/**
 * Interned `PublicKey`s for owners read from the ledger: a handful of program ids own almost
 * every account, and building a PublicKey from bytes costs a big-number conversion each time.
 */
export class PublicKeyPool {
  private readonly keys = new Map<string, PublicKey>();

  of(bytes: Buffer): PublicKey {
    const id = bytes.toString('base64');
    let key = this.keys.get(id);
    if (!key) {
      key = new PublicKey(bytes);
      if (this.keys.size >= MAX_POOLED) this.keys.clear();
      this.keys.set(id, key);
    }
    return key;
  }
}
