import { PublicKey } from '@solana/web3.js';
import { TapePdas } from '../../chain/pdas';
import { TapeInstructions } from '../../chain/tape-instructions';

/**
 * Program addresses remembered for the length of one deploy. Each derivation costs a few
 * hashes and a curve check (about half a millisecond), and TapeInstructions derives the config
 * address for every instruction and a track's address again for its WriteTrack: a 1,000-file
 * deploy would spend seconds of CPU deriving the same addresses.
 */
class MemoizedPdas extends TapePdas {
  private configAddress?: PublicKey;
  private readonly addresses = new Map<string, PublicKey>();

  override config(): PublicKey {
    return (this.configAddress ??= super.config());
  }

  override tape(authority: PublicKey): PublicKey {
    return this.remember(`a${authority.toBase58()}`, () => super.tape(authority));
  }

  override track(tape: PublicKey, commitment: Uint8Array): PublicKey {
    const key = `t${tape.toBase58()}${Buffer.from(commitment).toString('hex')}`;
    return this.remember(key, () => super.track(tape, commitment));
  }

  override name(tape: PublicKey, name: string): PublicKey {
    return this.remember(`n${tape.toBase58()}/${name}`, () => super.name(tape, name));
  }

  private remember(key: string, derive: () => PublicKey): PublicKey {
    let address = this.addresses.get(key);
    if (!address) this.addresses.set(key, (address = derive()));
    return address;
  }
}

/** The tape program's instruction builders, with program addresses remembered. */
export function memoizedInstructions(programId: PublicKey): TapeInstructions {
  const instructions = new TapeInstructions(programId);
  // `pdas` is readonly on TapeInstructions; its builders read it on every call, so replacing
  // it here (once, before use) is all it takes.
  Object.defineProperty(instructions, 'pdas', { value: new MemoizedPdas(programId) });
  return instructions;
}
