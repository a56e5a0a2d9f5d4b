import { PublicKey, TransactionInstruction } from '@solana/web3.js';

/** Solana's limit on a serialized transaction. */
export const PACKET_DATA_SIZE = 1232;

/** Keys are compared by their bytes; the string is cached per PublicKey object. */
const keyIds = new WeakMap<PublicKey, string>();
function keyId(key: PublicKey): string {
  let id = keyIds.get(key);
  if (id === undefined) {
    id = key.toBuffer().toString('latin1');
    keyIds.set(key, id);
  }
  return id;
}

function shortVec(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : 3;
}

/**
 * The exact serialized size of a legacy transaction, kept up to date as instructions are
 * added: `transactionSize` (transaction-packer.ts) compiles the whole message for
 * every candidate, which makes packing a thousand instructions quadratic and costs seconds.
 *
 *   shortvec(signatures) + 64 × signatures
 *   + 3 (header) + shortvec(keys) + 32 × keys + 32 (blockhash)
 *   + shortvec(instructions) + Σ (1 + shortvec(accounts) + accounts + shortvec(data) + data)
 */
export class TransactionBudget {
  private readonly keys = new Set<string>();
  private readonly signers = new Set<string>();
  private instructionBytes = 0;
  private count = 0;

  constructor(private readonly feePayer: PublicKey) {
    this.keys.add(keyId(feePayer));
    this.signers.add(keyId(feePayer));
  }

  get instructions(): number {
    return this.count;
  }

  size(): number {
    return this.sizeWith(this.keys.size, this.signers.size, this.instructionBytes, this.count);
  }

  /** The size with `ix` added, without adding it. */
  sizeIf(ix: TransactionInstruction): number {
    let keys = this.keys.size;
    let signers = this.signers.size;
    const seen = new Set<string>();
    const consider = (key: PublicKey, isSigner: boolean) => {
      const id = keyId(key);
      if (!this.keys.has(id) && !seen.has(id)) keys++;
      if (isSigner && !this.signers.has(id) && !seen.has(`s${id}`)) {
        signers++;
        seen.add(`s${id}`);
      }
      seen.add(id);
    };
    for (const meta of ix.keys) consider(meta.pubkey, meta.isSigner);
    consider(ix.programId, false);
    return this.sizeWith(
      keys,
      signers,
      this.instructionBytes + instructionBytes(ix),
      this.count + 1,
    );
  }

  add(ix: TransactionInstruction): void {
    for (const meta of ix.keys) {
      const id = keyId(meta.pubkey);
      this.keys.add(id);
      if (meta.isSigner) this.signers.add(id);
    }
    this.keys.add(keyId(ix.programId));
    this.instructionBytes += instructionBytes(ix);
    this.count++;
  }

  private sizeWith(keys: number, signers: number, ixBytes: number, count: number): number {
    return (
      shortVec(signers) +
      64 * signers +
      3 +
      shortVec(keys) +
      32 * keys +
      32 +
      shortVec(count) +
      ixBytes
    );
  }
}

function instructionBytes(ix: TransactionInstruction): number {
  return 1 + shortVec(ix.keys.length) + ix.keys.length + shortVec(ix.data.length) + ix.data.length;
}
