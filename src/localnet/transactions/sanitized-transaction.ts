import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';

/** Solana's packet limit: a transaction's wire bytes must fit one 1232-byte packet. */
export const PACKET_DATA_SIZE = 1232;
const SIGNATURE_BYTES = 64;

export interface MessageInstruction {
  programIdIndex: number;
  accountIndexes: number[];
  data: Buffer;
}

/** Why the wire bytes are not a transaction; the RPC answers these as invalid params (-32602). */
export class TransactionDecodeError extends Error {}

/**
 * A transaction parsed from its wire bytes by web3.js and checked like Solana's `sanitize`:
 * one signature per required signer, header counts and every index within the account keys,
 * the fee payer writable and never a program, no account listed twice, no address lookups.
 */
export class SanitizedTransaction {
  readonly signature: string;
  readonly keyBytes: Buffer[];

  private constructor(
    readonly raw: Buffer,
    readonly signatures: Buffer[],
    readonly messageBytes: Buffer,
    readonly version: 'legacy' | 0,
    readonly accountKeys: PublicKey[],
    readonly header: {
      numRequiredSignatures: number;
      numReadonlySignedAccounts: number;
      numReadonlyUnsignedAccounts: number;
    },
    readonly recentBlockhash: string,
    readonly instructions: MessageInstruction[],
  ) {
    this.signature = bs58.encode(signatures[0]);
    this.keyBytes = accountKeys.map((k) => k.toBuffer());
  }

  static parse(raw: Buffer): SanitizedTransaction {
    if (raw.length > PACKET_DATA_SIZE) {
      throw new TransactionDecodeError(
        `decoded solana_sdk::transaction::versioned::VersionedTransaction too large: ${raw.length} bytes (max: ${PACKET_DATA_SIZE} bytes)`,
      );
    }
    const { count, length } = readCompactU16(raw, 0);
    const messageOffset = length + count * SIGNATURE_BYTES;
    if (count === 0 || messageOffset >= raw.length)
      throw deserializeError('io error: unexpected end of file');
    const messageBytes = raw.subarray(messageOffset);
    const versioned = (messageBytes[0] & 0x80) !== 0;
    const version = messageBytes[0] & 0x7f;
    if (versioned && version !== 0) {
      throw new TransactionDecodeError(`unsupported transaction message version ${version}`);
    }
    if (messageBytes[versioned ? 1 : 0] !== count) throw sanitizeError();

    // Parsed here rather than by web3.js: its legacy Message keeps instruction data as base58
    // strings, which cost about 300 µs for a packet of nine SetName.
    const signatures: Buffer[] = [];
    for (let i = 0; i < count; i++) {
      const start = length + i * SIGNATURE_BYTES;
      signatures.push(Buffer.from(raw.subarray(start, start + SIGNATURE_BYTES)));
    }
    const r = new MessageReader(messageBytes, versioned ? 1 : 0);
    const header = {
      numRequiredSignatures: r.u8(),
      numReadonlySignedAccounts: r.u8(),
      numReadonlyUnsignedAccounts: r.u8(),
    };
    const keyCount = r.compactU16();
    const keys: PublicKey[] = [];
    for (let i = 0; i < keyCount; i++) keys.push(new PublicKey(r.bytes(32)));
    const recentBlockhash = bs58.encode(r.bytes(32));
    const instructionCount = r.compactU16();
    const instructions: MessageInstruction[] = [];
    for (let i = 0; i < instructionCount; i++) {
      const programIdIndex = r.u8();
      const accountIndexes = [...r.bytes(r.compactU16())];
      const data = Buffer.from(r.bytes(r.compactU16()));
      instructions.push({ programIdIndex, accountIndexes, data });
    }
    if (versioned && r.compactU16() > 0) {
      throw new TransactionDecodeError(
        'address lookup tables are not supported by this local network: list every account in the message',
      );
    }
    if (!r.atEnd()) throw deserializeError('trailing or non-canonical bytes in the message');
    const parsed = new SanitizedTransaction(
      raw,
      signatures,
      messageBytes,
      versioned ? 0 : 'legacy',
      keys,
      header,
      recentBlockhash,
      instructions,
    );
    parsed.sanitize();
    return parsed;
  }

  get feePayer(): PublicKey {
    return this.accountKeys[0];
  }

  isSigner(index: number): boolean {
    return index < this.header.numRequiredSignatures;
  }

  /** Writable as the header says (the runtime still demotes programs and reserved ids). */
  isWritableByHeader(index: number): boolean {
    const h = this.header;
    if (index < h.numRequiredSignatures) {
      return index < h.numRequiredSignatures - h.numReadonlySignedAccounts;
    }
    return index < this.accountKeys.length - h.numReadonlyUnsignedAccounts;
  }

  private sanitize(): void {
    const h = this.header;
    const n = this.accountKeys.length;
    if (h.numRequiredSignatures + h.numReadonlyUnsignedAccounts > n) throw sanitizeError();
    if (h.numReadonlySignedAccounts >= h.numRequiredSignatures) throw sanitizeError();
    for (const ix of this.instructions) {
      if (ix.programIdIndex === 0 || ix.programIdIndex >= n) throw sanitizeError();
      if (ix.accountIndexes.some((i) => i >= n)) throw sanitizeError();
    }
    const seen = new Set<string>();
    for (const key of this.keyBytes) {
      const hex = key.toString('hex');
      if (seen.has(hex))
        throw new TransactionDecodeError('invalid transaction: Account loaded twice');
      seen.add(hex);
    }
  }
}

function sanitizeError(): TransactionDecodeError {
  return new TransactionDecodeError(
    'invalid transaction: Transaction failed to sanitize accounts offsets correctly',
  );
}

function deserializeError(detail: string): TransactionDecodeError {
  return new TransactionDecodeError(
    `failed to deserialize solana_sdk::transaction::versioned::VersionedTransaction: ${detail}`,
  );
}

/** Solana's compact-u16 ("shortvec") length prefix. */
export function readCompactU16(buf: Buffer, offset: number): { count: number; length: number } {
  let count = 0;
  for (let i = 0; i < 3; i++) {
    if (offset + i >= buf.length) throw deserializeError('io error: unexpected end of file');
    const byte = buf[offset + i];
    count |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return { count, length: i + 1 };
  }
  throw deserializeError('invalid compact-u16');
}

function compactLength(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : 3;
}

/** Reads a message's fields in order; running out of bytes is a deserialize error. */
class MessageReader {
  constructor(
    private readonly buf: Buffer,
    private offset: number,
  ) {}

  u8(): number {
    return this.bytes(1)[0];
  }

  bytes(n: number): Buffer {
    if (this.offset + n > this.buf.length)
      throw deserializeError('io error: unexpected end of file');
    const out = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  /** A compact-u16 in its shortest form (web3.js accepts longer ones; Solana does not). */
  compactU16(): number {
    const { count, length } = readCompactU16(this.buf, this.offset);
    if (length !== compactLength(count)) {
      throw deserializeError('trailing or non-canonical bytes in the message');
    }
    this.offset += length;
    return count;
  }

  atEnd(): boolean {
    return this.offset === this.buf.length;
  }
}
