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
    latestVersion: 3,
    sequence: 5,
    keptBytes: 400,
    keep: 4,
    history: [
      { version: 1, root: Buffer.alloc(32, 4), bytes: 100, publishedAt: 1_700_000_050 },
      { version: 2, root: Buffer.alloc(32, 5), bytes: 300, publishedAt: 1_700_000_100 },
      { version: 3, root: Buffer.alloc(32, 6), bytes: 200, publishedAt: 1_700_000_200 },
    ],
    aliases: [{ name: 'pr-42', version: 3 }],
  };

  it('is 2221 bytes: the version fields, 32 history slots, then 8 alias slots, in the documented order', () => {
    const data = encodeTape(tapeRecord);
    expect(data.length).toBe(TAPE_SIZE);
    expect(TAPE_SIZE).toBe(2221);
    expect(data.readBigUInt64LE(66)).toBe(1_000n); // capacity
    expect(data.readBigInt64LE(90)).toBe(1_700_000_000n); // created_at
    expect(data.subarray(98, 130)).toEqual(payer.toBuffer());
    expect(data.readBigUInt64LE(130)).toBe(2n); // version
    expect(data.readBigUInt64LE(138)).toBe(3n); // latest_version
    expect(data.readBigUInt64LE(146)).toBe(5n); // sequence
    expect(data.readBigUInt64LE(154)).toBe(400n); // kept_bytes
    expect(data[162]).toBe(4); // keep
    expect(data[163]).toBe(3); // history_len
    expect(data.readBigUInt64LE(164 + 56)).toBe(2n); // history[1].version
    expect(data.subarray(164 + 56 + 8, 164 + 56 + 40)).toEqual(Buffer.alloc(32, 5));
    expect(data.subarray(164 + 3 * 56, 1956).equals(Buffer.alloc(1956 - 164 - 3 * 56))).toBe(true);
    expect(data[1956]).toBe(1); // alias_count
    expect(data[1957]).toBe(5); // alias[0].len
    expect(data.subarray(1958, 1963).toString()).toBe('pr-42');
    expect(data.readBigUInt64LE(1958 + 24)).toBe(3n);
    expect(decodeTape(data)).toEqual(tapeRecord);
  });

  it('refuses tape records of earlier layouts (242 bytes: 1.2.0) and bad counts', () => {
    expect(() => decodeTape(encodeTape(tapeRecord).subarray(0, 242))).toThrow(LayoutError);
    const longer = Buffer.concat([encodeTape(tapeRecord), Buffer.alloc(16)]);
    expect(() => decodeTape(longer)).toThrow('16 trailing bytes');
    const badLen = encodeTape(tapeRecord);
    badLen[163] = 33;
    expect(() => decodeTape(badLen)).toThrow('history_len 33 exceeds 32');
  });
});

describe('tape-changing instruction data', () => {
  it('Publish is the expected sequence, the root, two byte counts and a padded alias', () => {
    const d = {
      tag: Tag.Publish as const,
      expectedSequence: 3,
      root: Buffer.alloc(32, 7),
      versionBytes: 500,
      keptBytes: 900,
      alias: 'staging',
    };
    const data = encodeInstructionData(d);
    expect(data.length).toBe(1 + 8 + 32 + 8 + 8 + 1 + 24);
    expect(data[57]).toBe(7);
    expect(decodeInstructionData(data)).toEqual(d);
    const live = encodeInstructionData({ ...d, alias: '' });
    expect(live.subarray(57).equals(Buffer.alloc(25))).toBe(true);
  });

  it('SetCurrent, RemoveAlias and SetKeep', () => {
    const cases = [
      { tag: Tag.SetCurrent as const, expectedSequence: 9, version: 4 },
      { tag: Tag.RemoveAlias as const, expectedSequence: 9, name: 'pr-42' },
      { tag: Tag.SetKeep as const, expectedSequence: 9, keep: 16 },
    ];
    expect(cases.map((d) => encodeInstructionData(d).length)).toEqual([17, 34, 10]);
    for (const d of cases) expect(decodeInstructionData(encodeInstructionData(d))).toEqual(d);
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
