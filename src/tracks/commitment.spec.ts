import { Sha256 } from '@aws-crypto/sha256-js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CHUNK_BYTES,
  TrackHasher,
  chunkCount,
  commitmentFromHex,
  commitmentOfBuffer,
  commitmentOfFile,
  commitmentToHex,
  etagOf,
  isCommitmentHex,
  readBufferBytes,
  readFileSequentially,
  verifyChunkList,
} from './commitment';

/** Pure-JS SHA-256 (not node:crypto), so the scheme is checked by a second implementation. */
async function sha256(data: Uint8Array): Promise<Buffer> {
  const hash = new Sha256();
  hash.update(data);
  return Buffer.from(await hash.digest());
}

/** The scheme written out naively from docs/tracks.md. */
async function independentCommitment(data: Buffer): Promise<{ hex: string; chunks: Buffer }> {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += 65536) {
    chunks.push(await sha256(data.subarray(offset, offset + 65536)));
  }
  const size = Buffer.alloc(8);
  size.writeBigUInt64LE(BigInt(data.length));
  const list = Buffer.concat(chunks);
  const top = await sha256(Buffer.concat([Buffer.from('tape-track-v1'), size, list]));
  return { hex: top.toString('hex'), chunks: list };
}

const pattern = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => i % 251));

describe('commitment scheme', () => {
  // Pinned vectors (computed with Python's hashlib): the CLI, the gateway and any other
  // implementation must give these, so a change to the scheme fails here.
  it.each([
    ['empty', Buffer.alloc(0), 'c7397de1f73337f838856c74d6855dd509e4ecdeb2736083f93e47f78ee84412'],
    [
      'one byte',
      Buffer.from('a'),
      '98d567c64ace5bba7130a589e0d8652f0799348984b6e9781feccfaec13284af',
    ],
    [
      'exactly 64 KiB',
      pattern(65536),
      '47324f0979060087fa2f00ecc40bdd192483041bb407382847a1c79b8c27db99',
    ],
    [
      '64 KiB + 1',
      pattern(65537),
      '31c337f7cf2354149c06300e3306e791ab5d0d5da952197cf4d25ea122dda3d0',
    ],
    [
      '200000 bytes',
      pattern(200000),
      '542bba636fcd97e7b2488255c0657ea1c9171df9c1b3532a830cd0d7a156bd14',
    ],
    [
      '3 full chunks',
      pattern(3 * 65536),
      '8824bab8cfc75ad962c11ee9697fb3f1c172de5bc1272dc66a6be90260183cfa',
    ],
  ])('gives the pinned vector for %s', async (_name, data, expected) => {
    const digest = commitmentOfBuffer(data);
    expect(commitmentToHex(digest.commitment)).toBe(expected);
    expect(digest.size).toBe(data.length);
    expect(digest.chunkHashes.length).toBe(chunkCount(data.length) * 32);
    const independent = await independentCommitment(data);
    expect(independent.hex).toBe(expected);
    expect(digest.chunkHashes.equals(independent.chunks)).toBe(true);
  });

  it('an empty track has zero chunks', () => {
    expect(chunkCount(0)).toBe(0);
    expect(commitmentOfBuffer(Buffer.alloc(0)).chunkHashes.length).toBe(0);
  });

  it('agrees with the independent computation for random data fed in random pieces', async () => {
    for (const size of [1, 65535, 65536, 65537, 131072, 300001]) {
      const data = randomBytes(size);
      const hasher = new TrackHasher();
      let offset = 0;
      while (offset < data.length) {
        const piece = 1 + Math.floor(Math.random() * 100000);
        hasher.update(data.subarray(offset, offset + piece));
        offset += piece;
      }
      const digest = hasher.digest();
      const independent = await independentCommitment(data);
      expect(commitmentToHex(digest.commitment)).toBe(independent.hex);
      expect(digest.chunkHashes.equals(independent.chunks)).toBe(true);
    }
  });

  it('binds the size: same chunk hashes with another size give another commitment', () => {
    const data = pattern(65536);
    const a = commitmentOfBuffer(data);
    expect(verifyChunkList(a.commitment, 65536, a.chunkHashes)).toBe(true);
    expect(verifyChunkList(a.commitment, 65535, a.chunkHashes)).toBe(false);
    expect(verifyChunkList(a.commitment, 1, a.chunkHashes)).toBe(false);
  });

  it('hashes a file like a buffer, across read-buffer boundaries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'commit-'));
    for (const size of [0, 1, 64 * CHUNK_BYTES, 64 * CHUNK_BYTES + 17, 9 * 1024 * 1024 + 3]) {
      const data = randomBytes(size);
      const file = join(dir, `f${size}`);
      writeFileSync(file, data);
      const fromFile = await commitmentOfFile(file);
      const fromBuffer = commitmentOfBuffer(data);
      expect(fromFile.commitment.equals(fromBuffer.commitment)).toBe(true);
      expect(fromFile.chunkHashes.equals(fromBuffer.chunkHashes)).toBe(true);
      expect(fromFile.size).toBe(size);
    }
  });

  it('refuses to be used after digest', () => {
    const hasher = new TrackHasher().update(Buffer.from('x'));
    hasher.digest();
    expect(() => hasher.update(Buffer.from('y'))).toThrow(/after digest/);
    expect(() => hasher.digest()).toThrow(/twice/);
  });
});

describe('readFileSequentially', () => {
  it('reads a file with a buffer no larger than the file, at most 4 MiB', () => {
    expect(readBufferBytes(0)).toBe(1);
    expect(readBufferBytes(300)).toBe(301);
    expect(readBufferBytes(4 * 1024 * 1024)).toBe(4 * 1024 * 1024);
    expect(readBufferBytes(50 * 1024 * 1024)).toBe(4 * 1024 * 1024);
  });

  it('hands over every byte, in order, whatever the size', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'read-seq-'));
    for (const size of [0, 1, 300, CHUNK_BYTES, 4 * 1024 * 1024 + 17]) {
      const data = randomBytes(size);
      const file = join(dir, `f${size}`);
      writeFileSync(file, data);
      const parts: Buffer[] = [];
      const alloc = jest.spyOn(Buffer, 'allocUnsafe');
      let total: number;
      try {
        total = await readFileSequentially(file, (bytes) => parts.push(Buffer.from(bytes)));
        // One buffer, sized for the file.
        expect(alloc.mock.calls).toEqual([[readBufferBytes(size)]]);
      } finally {
        alloc.mockRestore();
      }
      expect(total).toBe(size);
      expect(Buffer.concat(parts).equals(data)).toBe(true);
      expect((await commitmentOfFile(file)).commitment).toEqual(
        commitmentOfBuffer(data).commitment,
      );
    }
  });
});

describe('verifyChunkList', () => {
  const data = randomBytes(3 * CHUNK_BYTES + 5);
  const { commitment, chunkHashes, size } = commitmentOfBuffer(data);

  it('accepts the real list', () => {
    expect(verifyChunkList(commitment, size, chunkHashes)).toBe(true);
  });

  it('rejects a list with one flipped bit, a short list, a long list, a bad commitment', () => {
    const flipped = Buffer.from(chunkHashes);
    flipped[40] ^= 1;
    expect(verifyChunkList(commitment, size, flipped)).toBe(false);
    expect(verifyChunkList(commitment, size, chunkHashes.subarray(0, 96))).toBe(false);
    expect(verifyChunkList(commitment, size, Buffer.concat([chunkHashes, Buffer.alloc(32)]))).toBe(
      false,
    );
    expect(verifyChunkList(commitment.subarray(0, 31), size, chunkHashes)).toBe(false);
    expect(verifyChunkList(commitment, -1, chunkHashes)).toBe(false);
    expect(verifyChunkList(commitment, 2 ** 53, chunkHashes)).toBe(false);
  });
});

describe('hex helpers', () => {
  const commitment = commitmentOfBuffer(Buffer.from('hello')).commitment;

  it('round-trips and quotes the ETag', () => {
    const hex = commitmentToHex(commitment);
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    expect(commitmentFromHex(hex).equals(commitment)).toBe(true);
    expect(etagOf(commitment)).toBe(`"${hex}"`);
  });

  it('accepts only 64 lowercase hex digits', () => {
    const hex = commitmentToHex(commitment);
    for (const bad of [
      hex.toUpperCase(),
      hex.slice(1),
      `${hex}0`,
      `${hex.slice(1)}g`,
      '',
      ' ' + hex,
    ]) {
      expect(isCommitmentHex(bad)).toBe(false);
      expect(() => commitmentFromHex(bad)).toThrow(RangeError);
    }
    expect(isCommitmentHex(42)).toBe(false);
    expect(() => commitmentToHex(Buffer.alloc(31))).toThrow(RangeError);
  });
});
