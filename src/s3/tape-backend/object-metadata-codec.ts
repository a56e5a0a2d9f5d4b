import { ByteReader, ByteWriter } from '../../chain/byte-codec';
import { MAX_PARTS } from '../xml/s3-xml-requests';
import { ChecksumAlgorithm, CHECKSUM_ALGORITHMS, checksumDigestBytes } from '../body/checksums';
import {
  ChecksumType,
  NO_METADATA,
  ObjectChecksum,
  ObjectMetadata,
  STORED_HEADERS,
} from '../object-metadata';

/**
 * An object's metadata as the S3 endpoint keeps it in its name account's metadata tail (opaque
 * to the program, docs/program.md "Name"). Compact because every byte is rent:
 *
 *   u8 version = 1, then fields until the end, each a u8 field id and its value:
 *   1..5  a stored header (STORED_HEADERS[id - 1]): u16 length + UTF-8 value
 *   16    a user metadata entry: u8 length + name, u16 length + value (UTF-8)
 *   32    the checksum: u8 algorithm (CHECKSUM_ALGORITHMS index), u8 type (0 FULL_OBJECT,
 *         1 COMPOSITE), u16 parts (0 for FULL_OBJECT), the raw digest (its algorithm's length)
 *   48    the S3 ETag: 16 bytes of MD5, u16 parts (0: a single-part object, `<hex>`; else
 *         `<hex>-<parts>`)
 *   64    the part sizes: u16 runs, each u16 count and u64 size (equal parts take one run)
 *   65    the parts' checksums: u8 algorithm, u16 count, the raw digests in part order
 *   80    when the object was written: u64 unix seconds (its S3 Last-Modified)
 *
 * An object without any metadata has no tail at all (encode returns undefined).
 */
const VERSION = 1;
/** The field ids above (1..5 are the stored headers). */
const FIELD = { user: 16, checksum: 32, etag: 48, partSizes: 64, partChecksums: 65, modified: 80 };
const ETAG_PATTERN = /^([0-9a-f]{32})(?:-([1-9]\d{0,4}))?$/;

export function encodeObjectMetadata(m: ObjectMetadata): Buffer | undefined {
  const w = new ByteWriter().u8(VERSION);
  let fields = 0;
  STORED_HEADERS.forEach((name, i) => {
    const value = m.headers[name];
    if (value === undefined) return;
    w.u8(i + 1).str(value, 2);
    fields++;
  });
  for (const [name, value] of Object.entries(m.user)) {
    w.u8(FIELD.user).str(name, 1).str(value, 2);
    fields++;
  }
  if (m.checksum) {
    const { algorithm, type, value } = m.checksum;
    const [digest, parts] = value.split('-');
    w.u8(FIELD.checksum)
      .u8(CHECKSUM_ALGORITHMS.indexOf(algorithm))
      .u8(type === 'COMPOSITE' ? 1 : 0)
      .u16(parts === undefined ? 0 : Number(parts))
      .bytes(Buffer.from(digest, 'base64'));
    fields++;
  }
  const etag = m.etag === undefined ? null : ETAG_PATTERN.exec(m.etag);
  if (etag) {
    w.u8(FIELD.etag)
      .bytes(Buffer.from(etag[1], 'hex'))
      .u16(Number(etag[2] ?? 0));
    fields++;
  }
  if (m.parts) {
    const runs = runsOf(m.parts.sizes);
    w.u8(FIELD.partSizes).u16(runs.length);
    for (const [count, size] of runs) w.u16(count).u64(size);
    fields++;
    if (m.parts.checksums && m.checksum) {
      w.u8(FIELD.partChecksums)
        .u8(CHECKSUM_ALGORITHMS.indexOf(m.checksum.algorithm))
        .u16(m.parts.checksums.length);
      for (const c of m.parts.checksums) w.bytes(Buffer.from(c, 'base64'));
    }
  }
  if (m.modified !== undefined) {
    w.u8(FIELD.modified).u64(m.modified);
    fields++;
  }
  return fields === 0 ? undefined : w.done();
}

/**
 * The metadata in a name's tail; a name without one (every name `tape deploy` writes, and every
 * name written before the tail existed) has none. A tail this gateway cannot read (another
 * writer's, a later version) counts as none rather than making the object unreadable.
 */
export function decodeObjectMetadata(tail: Buffer | undefined): ObjectMetadata {
  if (!tail || tail.length === 0) return NO_METADATA;
  try {
    const r = new ByteReader(tail);
    if (r.u8() !== VERSION) return NO_METADATA;
    const out: ObjectMetadata = { headers: {}, user: {} };
    while (r.remaining > 0) {
      const field = r.u8();
      if (field >= 1 && field <= STORED_HEADERS.length) {
        out.headers[STORED_HEADERS[field - 1]] = r.str(2);
      } else if (field === FIELD.user) {
        const name = r.str(1);
        out.user[name] = r.str(2);
      } else if (field === FIELD.checksum) {
        out.checksum = readChecksum(r);
      } else if (field === FIELD.etag) {
        const md5 = r.bytes(16).toString('hex');
        const parts = r.u16();
        out.etag = parts === 0 ? md5 : `${md5}-${parts}`;
      } else if (field === FIELD.partSizes) {
        out.parts = { ...out.parts, sizes: readRuns(r) };
      } else if (field === FIELD.partChecksums) {
        out.parts = { sizes: [], ...out.parts, checksums: readDigests(r) };
      } else if (field === FIELD.modified) {
        out.modified = r.u64n();
      } else {
        return NO_METADATA;
      }
    }
    return out;
  } catch {
    return NO_METADATA;
  }
}

/** Part sizes as runs of equal sizes: [count, size], counts at most 65,535. */
function runsOf(sizes: number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const size of sizes) {
    const last = runs[runs.length - 1];
    if (last && last[1] === size && last[0] < 0xffff) last[0]++;
    else runs.push([1, size]);
  }
  return runs;
}

function readRuns(r: ByteReader): number[] {
  const sizes: number[] = [];
  for (let runs = r.u16(); runs > 0; runs--) {
    const count = r.u16();
    const size = r.u64n();
    // A tail is anyone's bytes (a tape's owner may write one): never more parts than S3 allows.
    if (sizes.length + count > MAX_PARTS) throw new RangeError('too many parts');
    for (let i = 0; i < count; i++) sizes.push(size);
  }
  return sizes;
}

function readDigests(r: ByteReader): string[] {
  const algorithm = CHECKSUM_ALGORITHMS[r.u8()];
  if (algorithm === undefined) throw new RangeError('unknown checksum algorithm');
  const digests: string[] = [];
  const count = r.u16();
  if (count > MAX_PARTS) throw new RangeError('too many parts');
  for (let i = 0; i < count; i++) {
    digests.push(r.bytes(checksumDigestBytes(algorithm)).toString('base64'));
  }
  return digests;
}

function readChecksum(r: ByteReader): ObjectChecksum {
  const algorithm = CHECKSUM_ALGORITHMS[r.u8()];
  if (algorithm === undefined) throw new RangeError('unknown checksum algorithm');
  const composite = r.u8() === 1;
  const parts = r.u16();
  const digest = r.bytes(checksumDigestBytes(algorithm)).toString('base64');
  return {
    algorithm,
    type: composite ? 'COMPOSITE' : 'FULL_OBJECT',
    value: composite ? `${digest}-${parts}` : digest,
  };
}

/**
 * A checksum as long as the real one will be: the tail is sized (does it fit with the name?)
 * before the body is read, when only the algorithm is known.
 */
export function placeholderChecksum(
  algorithm: ChecksumAlgorithm,
  type: ChecksumType = 'FULL_OBJECT',
): ObjectChecksum {
  const digest = Buffer.alloc(checksumDigestBytes(algorithm)).toString('base64');
  return { algorithm, type, value: type === 'COMPOSITE' ? `${digest}-1` : digest };
}
