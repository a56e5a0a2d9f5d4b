import { PublicKey } from '@solana/web3.js';
import { decodeName, encodeName, nameSize, NameRecord, TrackKind } from './account-layouts';
import { LayoutError } from './byte-codec';
import { decodeInstructionData, encodeInstructionData, Tag } from './tape-instruction-data';

const tape = new PublicKey(Buffer.alloc(32, 1));
const track = new PublicKey(Buffer.alloc(32, 2));
const commitment = Buffer.alloc(32, 3);

/** A name account as every build before the metadata tail wrote it, byte by byte. */
function oldLayoutName(name: string, contentType: string): Buffer {
  const fixed = Buffer.alloc(1 + 32 + 32 + 32 + 8 + 1 + 8);
  let o = fixed.writeUInt8(4, 0);
  o += tape.toBuffer().copy(fixed, o);
  o += track.toBuffer().copy(fixed, o);
  o += commitment.copy(fixed, o);
  o = fixed.writeBigUInt64LE(11n, o);
  o = fixed.writeUInt8(TrackKind.Blob, o);
  fixed.writeBigInt64LE(1_700_000_000n, o);
  const ct = Buffer.from(contentType);
  const nm = Buffer.from(name);
  const nameLength = Buffer.alloc(2);
  nameLength.writeUInt16LE(nm.length);
  return Buffer.concat([fixed, Buffer.from([ct.length]), ct, nameLength, nm]);
}

const record = (metadata?: Buffer): NameRecord => ({
  tape,
  track,
  commitment,
  size: 11,
  kind: TrackKind.Blob,
  updatedAt: 1_700_000_000,
  contentType: 'text/html',
  name: 'index.html',
  ...(metadata ? { metadata } : {}),
});

describe('Name account layout', () => {
  it('decodes a name account written before the metadata tail existed, as one without metadata', () => {
    const raw = oldLayoutName('index.html', 'text/html');
    expect(raw.length).toBe(nameSize('index.html', 'text/html'));
    const decoded = decodeName(raw);
    expect(decoded).toEqual(record());
    expect(decoded.metadata).toBeUndefined();
    // Without metadata the encoder writes exactly the old layout.
    expect(encodeName(decoded)).toEqual(raw);
  });

  it('round-trips the metadata tail (a u16 length and opaque bytes) and sizes it', () => {
    const metadata = Buffer.from([1, 0, 0xff, 7]);
    const bytes = encodeName(record(metadata));
    expect(bytes.length).toBe(nameSize('index.html', 'text/html', metadata));
    expect(bytes.subarray(-6)).toEqual(Buffer.from([4, 0, 1, 0, 0xff, 7]));
    expect(decodeName(bytes)).toEqual(record(metadata));
  });

  it('refuses a tail shorter than its length and bytes after it', () => {
    const old = oldLayoutName('a', 'text/html');
    expect(() => decodeName(Buffer.concat([old, Buffer.from([3, 0, 1])]))).toThrow(LayoutError);
    expect(() => decodeName(Buffer.concat([old, Buffer.from([1, 0, 1, 9])]))).toThrow(
      '1 trailing bytes',
    );
    expect(() => decodeName(Buffer.concat([old, Buffer.from([1])]))).toThrow(LayoutError);
  });
});

describe('SetName instruction data', () => {
  it('sends no tail without metadata (what the CLI and older clients send)', () => {
    const data = encodeInstructionData({ tag: Tag.SetName, name: 'a', contentType: 't' });
    expect(data).toEqual(Buffer.from([Tag.SetName, 1, 0, 0x61, 1, 0x74]));
    expect(decodeInstructionData(data)).toEqual({ tag: Tag.SetName, name: 'a', contentType: 't' });
  });

  it('carries the metadata as a u16-prefixed tail', () => {
    const metadata = Buffer.from([9, 8, 7]);
    const data = encodeInstructionData({ tag: Tag.SetName, name: 'a', contentType: 't', metadata });
    expect(data.subarray(6)).toEqual(Buffer.from([3, 0, 9, 8, 7]));
    expect(decodeInstructionData(data)).toEqual({
      tag: Tag.SetName,
      name: 'a',
      contentType: 't',
      metadata,
    });
  });
});
