import { PublicKey } from '@solana/web3.js';
import {
  decodeName,
  decodeTape,
  encodeName,
  encodeTape,
  nameSize,
  NameRecord,
  TAPE_SIZE,
  TapeRecord,
  TrackKind,
} from './account-layouts';
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

describe('Tape account layout', () => {
  const tapeRecord: TapeRecord = {
    authority: tape,
    delegate: null,
    capacity: 1_000,
    used: 0,
    activeEpoch: 1,
    expiryEpoch: 9,
    createdAt: 1_700_000_000,
    nameCount: 0,
    trackCount: 0,
    payer: track,
    version: 2,
    root: Buffer.alloc(32, 5),
    versionBytes: 300,
    publishedAt: 1_700_000_100,
    prevVersion: 1,
    prevRoot: Buffer.alloc(32, 6),
    prevVersionBytes: 200,
    keptBytes: 400,
  };

  it('appends payer and the version fields after the counts, in the documented order', () => {
    const data = encodeTape(tapeRecord);
    expect(data.length).toBe(TAPE_SIZE);
    expect(data.subarray(114, 146)).toEqual(track.toBuffer());
    expect(data.readBigUInt64LE(146)).toBe(2n);
    expect(data.subarray(154, 186)).toEqual(Buffer.alloc(32, 5));
    expect(data.readBigUInt64LE(250)).toBe(400n);
    expect(decodeTape(data)).toEqual(tapeRecord);
  });

  it('refuses a tape record of the earlier 114-byte layout', () => {
    expect(() => decodeTape(encodeTape(tapeRecord).subarray(0, 114))).toThrow(LayoutError);
  });
});

describe('Publish instruction data', () => {
  it('is the expected version, the root and two byte counts', () => {
    const d = {
      tag: Tag.Publish as const,
      expectedVersion: 3,
      root: Buffer.alloc(32, 7),
      versionBytes: 500,
      addedBytes: 20,
    };
    const data = encodeInstructionData(d);
    expect(data.length).toBe(1 + 8 + 32 + 8 + 8);
    expect(decodeInstructionData(data)).toEqual(d);
  });
});
