import { ByteReader, ByteWriter } from '../../chain/byte-codec';
import { ChecksumAlgorithm, CHECKSUM_ALGORITHMS, checksumDigestBytes } from '../checksums';
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
 *
 * An object without any metadata has no tail at all (encode returns undefined).
 */
const VERSION = 1;
const USER_FIELD = 16;
const CHECKSUM_FIELD = 32;

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
    w.u8(USER_FIELD).str(name, 1).str(value, 2);
    fields++;
  }
  if (m.checksum) {
    const { algorithm, type, value } = m.checksum;
    const [digest, parts] = value.split('-');
    w.u8(CHECKSUM_FIELD)
      .u8(CHECKSUM_ALGORITHMS.indexOf(algorithm))
      .u8(type === 'COMPOSITE' ? 1 : 0)
      .u16(parts === undefined ? 0 : Number(parts))
      .bytes(Buffer.from(digest, 'base64'));
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
      } else if (field === USER_FIELD) {
        const name = r.str(1);
        out.user[name] = r.str(2);
      } else if (field === CHECKSUM_FIELD) {
        out.checksum = readChecksum(r);
      } else {
        return NO_METADATA;
      }
    }
    return out;
  } catch {
    return NO_METADATA;
  }
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
