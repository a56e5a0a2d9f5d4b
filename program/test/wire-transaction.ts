import { PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';

/**
 * An unsigned legacy transaction of one instruction, as wire bytes (zero signatures). web3.js
 * compiles the account list; the bytes are written here because its serializer stops at the
 * 1232-byte packet limit, and the specs send larger instructions (names up to 65535 bytes) to
 * see what the program does with them.
 */
/** Instruction data lengths are compact-u16 on the wire. */
export const MAX_INSTRUCTION_DATA = 0xffff;

export function unsignedWireTransaction(
  feePayer: PublicKey,
  blockhash: string,
  ix: TransactionInstruction,
): Buffer {
  if (ix.data.length > MAX_INSTRUCTION_DATA) {
    // litesvm aborts the whole process on such a transaction instead of returning an error.
    throw new RangeError(`${ix.data.length} bytes of instruction data do not fit a transaction`);
  }
  const keysOnly = new TransactionInstruction({
    programId: ix.programId,
    keys: ix.keys,
    data: Buffer.alloc(0),
  });
  const message = new Transaction({ feePayer, blockhash, lastValidBlockHeight: 0 })
    .add(keysOnly)
    .compileMessage();
  const [compiled] = message.instructions;
  const { header } = message;
  const parts: Buffer[] = [
    shortVec(header.numRequiredSignatures),
    Buffer.alloc(64 * header.numRequiredSignatures),
    Buffer.from([
      header.numRequiredSignatures,
      header.numReadonlySignedAccounts,
      header.numReadonlyUnsignedAccounts,
    ]),
    shortVec(message.accountKeys.length),
    ...message.accountKeys.map((k) => k.toBuffer()),
    Buffer.from(bs58.decode(blockhash)),
    shortVec(1),
    Buffer.from([compiled.programIdIndex]),
    shortVec(compiled.accounts.length),
    Buffer.from(compiled.accounts),
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
