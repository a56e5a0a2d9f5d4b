import { u64 } from './bytes';
import { Refusal } from './refusal';

/** Little-endian fields of a version node (docs/versions.md, "Encoding"), bounds-checked. */
export class Reader {
  private at = 0;
  constructor(private readonly buf: Uint8Array) {}
  private need(n: number): number {
    if (this.at + n > this.buf.length) throw new Refusal('node_mismatch', 'truncated node');
    const start = this.at;
    this.at += n;
    return start;
  }
  u8(): number {
    return this.buf[this.need(1)];
  }
  u16(): number {
    const s = this.need(2);
    return this.buf[s] | (this.buf[s + 1] << 8);
  }
  u32(): number {
    const s = this.need(4);
    return (
      (this.buf[s] | (this.buf[s + 1] << 8) | (this.buf[s + 2] << 16)) + this.buf[s + 3] * 0x1000000
    );
  }
  u64(): number {
    return u64(this.buf, this.need(8));
  }
  bytes(n: number): Uint8Array {
    const s = this.need(n);
    return this.buf.subarray(s, s + n);
  }
  str(n: number): string {
    return new TextDecoder('utf-8', { fatal: true }).decode(this.bytes(n));
  }
  end(): void {
    if (this.at !== this.buf.length) throw new Refusal('node_mismatch', 'trailing bytes');
  }
}
