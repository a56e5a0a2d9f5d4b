import { PublicKey } from '@solana/web3.js';
import { decodeTape, encodeTape, TAPE_SIZE, TapeRecord } from './account-layouts';
import { LayoutError } from './byte-codec';
import { decodeInstructionData, encodeInstructionData, Tag } from './tape-instruction-data';

const tape = new PublicKey(Buffer.alloc(32, 1));
const payer = new PublicKey(Buffer.alloc(32, 2));

describe('Tape account layout', () => {
  const tapeRecord: TapeRecord = {
    authority: tape,
    delegate: null,
    capacity: 1_000,
    activeEpoch: 1,
    expiryEpoch: 9,
    createdAt: 1_700_000_000,
    payer,
    version: 2,
    root: Buffer.alloc(32, 5),
    versionBytes: 300,
    publishedAt: 1_700_000_100,
    prevVersion: 1,
    prevRoot: Buffer.alloc(32, 6),
    prevVersionBytes: 200,
    keptBytes: 400,
  };

  it('puts payer and the version fields after created_at, in the documented order', () => {
    const data = encodeTape(tapeRecord);
    expect(data.length).toBe(TAPE_SIZE);
    expect(TAPE_SIZE).toBe(242);
    expect(data.readBigUInt64LE(66)).toBe(1_000n); // capacity
    expect(data.readBigInt64LE(90)).toBe(1_700_000_000n); // created_at
    expect(data.subarray(98, 130)).toEqual(payer.toBuffer());
    expect(data.readBigUInt64LE(130)).toBe(2n);
    expect(data.subarray(138, 170)).toEqual(Buffer.alloc(32, 5));
    expect(data.readBigUInt64LE(234)).toBe(400n);
    expect(decodeTape(data)).toEqual(tapeRecord);
  });

  it('refuses tape records of earlier layouts (114 bytes; 258 with the per-file counters)', () => {
    expect(() => decodeTape(encodeTape(tapeRecord).subarray(0, 114))).toThrow(LayoutError);
    const older = Buffer.concat([encodeTape(tapeRecord), Buffer.alloc(16)]);
    expect(() => decodeTape(older)).toThrow('16 trailing bytes');
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

describe('retired instruction tags', () => {
  it.each([5, 6, 7, 8, 9])(
    'refuses tag %i (a per-file instruction before 1.2.0) as unknown',
    (tag) => {
      expect(() => decodeInstructionData(Buffer.from([tag, 1, 0, 0x61, 0]))).toThrow(
        `unknown instruction tag ${tag}`,
      );
    },
  );
});
