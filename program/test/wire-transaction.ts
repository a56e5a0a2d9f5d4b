import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { base58, keyBytes } from './key-cache';

/** Instruction data lengths are compact-u16 on the wire. */
export const MAX_INSTRUCTION_DATA = 0xffff;

interface Entry {
  key: PublicKey;
  signer: boolean;
  writable: boolean;
}

/**
 * An unsigned legacy transaction of one instruction, as wire bytes (zero signatures), compiled
 * as web3.js does it (fee payer first, then writable signers, read-only signers, writable and
 * read-only others; flags merged over duplicates). Written here because web3.js's serializer
 * stops at the 1232-byte packet limit (the specs send larger instructions to see what the
 * program does with them) and compiles ten times slower than the program runs.
 */
export function unsignedWireTransaction(
  feePayer: PublicKey,
  blockhash: Uint8Array,
  ix: TransactionInstruction,
): Buffer {
  if (ix.data.length > MAX_INSTRUCTION_DATA) {
    // litesvm aborts the whole process on such a transaction instead of returning an error.
    throw new RangeError(`${ix.data.length} bytes of instruction data do not fit a transaction`);
  }
  const entries = new Map<string, Entry>();
  const add = (key: PublicKey, signer: boolean, writable: boolean) => {
    const id = base58(key);
    const known = entries.get(id);
    if (known) {
      known.signer ||= signer;
      known.writable ||= writable;
    } else entries.set(id, { key, signer, writable });
  };
  add(feePayer, true, true);
  for (const k of ix.keys) add(k.pubkey, k.isSigner, k.isWritable);
  add(ix.programId, false, false);
  const rank = (e: Entry) => (e.signer ? 0 : 2) + (e.writable ? 0 : 1);
  const [payer, ...others] = [...entries.values()];
  const ordered = [
    payer,
    ...others
      .map((e, i) => ({ e, i }))
      .sort((a, b) => rank(a.e) - rank(b.e) || a.i - b.i)
      .map((x) => x.e),
  ];
  const index = new Map(ordered.map((e, i) => [base58(e.key), i]));
  const signers = ordered.filter((e) => e.signer);
  const parts: Uint8Array[] = [
    shortVec(signers.length),
    Buffer.alloc(64 * signers.length),
    Buffer.from([
      signers.length,
      signers.filter((e) => !e.writable).length,
      ordered.filter((e) => !e.signer && !e.writable).length,
    ]),
    shortVec(ordered.length),
    ...ordered.map((e) => keyBytes(e.key)),
    blockhash,
    shortVec(1),
    Buffer.from([index.get(base58(ix.programId))!]),
    shortVec(ix.keys.length),
    Buffer.from(ix.keys.map((k) => index.get(base58(k.pubkey))!)),
    shortVec(ix.data.length),
    ix.data,
  ];
  return Buffer.concat(parts);
}

/** Solana's compact-u16 length. */
function shortVec(n: number): Buffer {
  const out: number[] = [];
  let rest = n;
  for (;;) {
    const low = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out.push(low);
      return Buffer.from(out);
    }
    out.push(low | 0x80);
  }
}
