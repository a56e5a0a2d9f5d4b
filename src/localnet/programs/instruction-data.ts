import { PublicKey } from '@solana/web3.js';
import { InstructionFailure } from '../runtime/native-program';

/**
 * Little-endian reader for native programs' instruction data. Running out of bytes is
 * `InvalidInstructionData`, as bincode/borsh deserialisation failures are on Solana; trailing
 * bytes are ignored, as Solana's `limited_deserialize` ignores them.
 */
export class InstructionData {
  private offset = 0;

  constructor(private readonly data: Buffer) {}

  u8(): number {
    return this.take(1).readUInt8(0);
  }
  u32(): number {
    return this.take(4).readUInt32LE(0);
  }
  u64(): bigint {
    return this.take(8).readBigUInt64LE(0);
  }
  pubkey(): PublicKey {
    return new PublicKey(this.take(32));
  }
  /** Rust's `COption<Pubkey>` in instruction data: a one-byte tag, then the key if present. */
  optionalPubkey(): PublicKey | null {
    return this.u8() === 1 ? this.pubkey() : null;
  }
  get remaining(): number {
    return this.data.length - this.offset;
  }

  private take(n: number): Buffer {
    if (this.offset + n > this.data.length) {
      throw new InstructionFailure('InvalidInstructionData', '');
    }
    const out = this.data.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
}
