import { createHash, Hash } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * The flexible checksums of S3 (`x-amz-checksum-<algorithm>`, as a header or an aws-chunked
 * trailer), computed incrementally while the body streams. Values are base64 of the big-endian
 * digest, as S3 sends them.
 */
export const CHECKSUM_ALGORITHMS = ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

export interface IncrementalChecksum {
  update(chunk: Buffer): void;
  digestBase64(): string;
}

export function checksumAlgorithmOfHeader(name: string): ChecksumAlgorithm | undefined {
  const lower = name.toLowerCase();
  if (!lower.startsWith('x-amz-checksum-')) return undefined;
  const algorithm = lower.slice('x-amz-checksum-'.length);
  return (CHECKSUM_ALGORITHMS as readonly string[]).includes(algorithm)
    ? (algorithm as ChecksumAlgorithm)
    : undefined;
}

export function newChecksum(algorithm: ChecksumAlgorithm): IncrementalChecksum {
  switch (algorithm) {
    case 'crc32':
      return new Crc32Checksum();
    case 'crc32c':
      return new Crc32cChecksum();
    case 'crc64nvme':
      return new Crc64NvmeChecksum();
    case 'sha1':
      return new HashChecksum(createHash('sha1'));
    case 'sha256':
      return new HashChecksum(createHash('sha256'));
  }
}

class HashChecksum implements IncrementalChecksum {
  constructor(private readonly hash: Hash) {}
  update(chunk: Buffer): void {
    this.hash.update(chunk);
  }
  digestBase64(): string {
    return this.hash.digest('base64');
  }
}

function uint32Base64(value: number): string {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out.toString('base64');
}

/** Node's zlib.crc32 is the same CRC-32 (ISO-HDLC) as S3's. */
class Crc32Checksum implements IncrementalChecksum {
  private value = 0;
  update(chunk: Buffer): void {
    this.value = crc32(chunk, this.value);
  }
  digestBase64(): string {
    return uint32Base64(this.value);
  }
}

/** CRC-32C (Castagnoli, reflected polynomial 0x82F63B78); Node has no built-in one. */
const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

class Crc32cChecksum implements IncrementalChecksum {
  private crc = 0xffffffff;
  update(chunk: Buffer): void {
    let crc = this.crc;
    for (let i = 0; i < chunk.length; i++)
      crc = CRC32C_TABLE[(crc ^ chunk[i]) & 0xff] ^ (crc >>> 8);
    this.crc = crc >>> 0;
  }
  digestBase64(): string {
    return uint32Base64(this.crc ^ 0xffffffff);
  }
}

/**
 * CRC-64/NVME (reflected polynomial 0x9A6C9329AC4BC9B5), kept as two 32-bit halves because
 * BigInt arithmetic per byte would be far too slow for object bodies.
 */
const CRC64_HI = new Uint32Array(256);
const CRC64_LO = new Uint32Array(256);
(() => {
  const polyHi = 0x9a6c9329;
  const polyLo = 0xac4bc9b5;
  for (let n = 0; n < 256; n++) {
    let hi = 0;
    let lo = n;
    for (let k = 0; k < 8; k++) {
      const carry = lo & 1;
      lo = ((lo >>> 1) | ((hi & 1) << 31)) >>> 0;
      hi = hi >>> 1;
      if (carry) {
        hi = (hi ^ polyHi) >>> 0;
        lo = (lo ^ polyLo) >>> 0;
      }
    }
    CRC64_HI[n] = hi;
    CRC64_LO[n] = lo;
  }
})();

class Crc64NvmeChecksum implements IncrementalChecksum {
  private hi = 0xffffffff;
  private lo = 0xffffffff;
  update(chunk: Buffer): void {
    let hi = this.hi;
    let lo = this.lo;
    for (let i = 0; i < chunk.length; i++) {
      const index = (lo ^ chunk[i]) & 0xff;
      const shiftedLo = ((lo >>> 8) | (hi << 24)) >>> 0;
      const shiftedHi = hi >>> 8;
      lo = (shiftedLo ^ CRC64_LO[index]) >>> 0;
      hi = (shiftedHi ^ CRC64_HI[index]) >>> 0;
    }
    this.hi = hi;
    this.lo = lo;
  }
  digestBase64(): string {
    const out = Buffer.alloc(8);
    out.writeUInt32BE((this.hi ^ 0xffffffff) >>> 0, 0);
    out.writeUInt32BE((this.lo ^ 0xffffffff) >>> 0, 4);
    return out.toString('base64');
  }
}

const DIGEST_BYTES: Record<ChecksumAlgorithm, number> = {
  crc32: 4,
  crc32c: 4,
  crc64nvme: 8,
  sha1: 20,
  sha256: 32,
};

/** Length of an algorithm's raw digest. */
export function checksumDigestBytes(algorithm: ChecksumAlgorithm): number {
  return DIGEST_BYTES[algorithm];
}

/** `x-amz-checksum-algorithm` / `ChecksumAlgorithm` values (`CRC32`, `SHA256`, …), any case. */
export function parseChecksumAlgorithm(value: string): ChecksumAlgorithm | undefined {
  const lower = value.trim().toLowerCase();
  return (CHECKSUM_ALGORITHMS as readonly string[]).includes(lower)
    ? (lower as ChecksumAlgorithm)
    : undefined;
}

/**
 * Which multipart checksum types S3 offers per algorithm: the CRCs can be combined into a
 * checksum of the whole object (FULL_OBJECT); CRC32, CRC32C, SHA1 and SHA256 into a checksum of
 * the parts' checksums (COMPOSITE). The first is S3's default for the algorithm.
 */
export const MULTIPART_CHECKSUM_TYPES: Record<
  ChecksumAlgorithm,
  readonly ('COMPOSITE' | 'FULL_OBJECT')[]
> = {
  crc32: ['COMPOSITE', 'FULL_OBJECT'],
  crc32c: ['COMPOSITE', 'FULL_OBJECT'],
  crc64nvme: ['FULL_OBJECT'],
  sha1: ['COMPOSITE'],
  sha256: ['COMPOSITE'],
};

/**
 * S3's COMPOSITE checksum of a multipart object: the algorithm over the parts' raw digests
 * concatenated in part order, base64, then `-<number of parts>`.
 */
export function compositeChecksum(algorithm: ChecksumAlgorithm, partValues: string[]): string {
  const sum = newChecksum(algorithm);
  for (const value of partValues) sum.update(Buffer.from(value, 'base64'));
  return `${sum.digestBase64()}-${partValues.length}`;
}

/** A well-formed base64 digest of the algorithm's length (what a client may send for a part). */
export function isChecksumValue(algorithm: ChecksumAlgorithm, value: string): boolean {
  const bytes = Buffer.from(value, 'base64');
  return bytes.length === DIGEST_BYTES[algorithm] && bytes.toString('base64') === value;
}

/** The XML element S3 names an algorithm's checksum with (`ChecksumCRC32`, `ChecksumSHA256`…). */
export function checksumElement(algorithm: ChecksumAlgorithm): string {
  return `Checksum${algorithm.toUpperCase()}`;
}
