import { PublicKey } from '@solana/web3.js';

/** Little-endian writer for the fixed account and instruction layouts of docs/program.md. */
export class ByteWriter {
  private readonly parts: Buffer[] = [];

  u8(v: number): this {
    return this.push(Buffer.from([v & 0xff]));
  }
  u16(v: number): this {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(v);
    return this.push(b);
  }
  u32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    return this.push(b);
  }
  u64(v: number | bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    return this.push(b);
  }
  i64(v: number | bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(BigInt(v));
    return this.push(b);
  }
  pubkey(key: PublicKey): this {
    return this.push(Buffer.from(key.toBytes()));
  }
  bytes(b: Uint8Array): this {
    return this.push(Buffer.from(b));
  }
  /** UTF-8 string with a u8 (short) or u16 length prefix. */
  str(s: string, lengthBytes: 1 | 2): this {
    const b = Buffer.from(s, 'utf8');
    const max = lengthBytes === 1 ? 0xff : 0xffff;
    if (b.length > max) throw new RangeError(`string of ${b.length} bytes exceeds ${max}`);
    if (lengthBytes === 1) this.u8(b.length);
    else this.u16(b.length);
    return this.push(b);
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
  private push(b: Buffer): this {
    this.parts.push(b);
    return this;
  }
}

/** Thrown for bytes that do not fit the layout they are read as. */
export class LayoutError extends Error {}

export class ByteReader {
  private offset = 0;
  constructor(private readonly buf: Buffer) {}

  get remaining(): number {
    return this.buf.length - this.offset;
  }
  u8(): number {
    return this.take(1).readUInt8(0);
  }
  u16(): number {
    return this.take(2).readUInt16LE(0);
  }
  u32(): number {
    return this.take(4).readUInt32LE(0);
  }
  u64(): bigint {
    return this.take(8).readBigUInt64LE(0);
  }
  /** A u64 that must fit a JS number exactly (sizes, epochs). */
  u64n(): number {
    const v = this.u64();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new LayoutError('u64 out of range');
    return Number(v);
  }
  i64n(): number {
    const v = this.take(8).readBigInt64LE(0);
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new LayoutError('i64 out of range');
    }
    return Number(v);
  }
  pubkey(): PublicKey {
    return new PublicKey(this.take(32));
  }
  bytes(n: number): Buffer {
    return Buffer.from(this.take(n));
  }
  str(lengthBytes: 1 | 2): string {
    const n = lengthBytes === 1 ? this.u8() : this.u16();
    const raw = this.take(n);
    const text = raw.toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(raw)) throw new LayoutError('invalid UTF-8');
    return text;
  }
  end(): void {
    if (this.remaining !== 0) throw new LayoutError(`${this.remaining} trailing bytes`);
  }
  private take(n: number): Buffer {
    if (this.offset + n > this.buf.length) throw new LayoutError('unexpected end of data');
    const out = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
}
