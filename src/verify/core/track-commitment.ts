import { CHUNK_BYTES, Sha256 } from './proof-format';

/** tape-track-v1 (docs/tracks.md): a file's commitment from its 64 KiB chunks' SHA-256. */

const TRACK_DOMAIN = 'tape-track-v1';

/** WebCrypto's SHA-256 (browsers, Node 20+). */
export const webCryptoSha256: Sha256 = async (data) => {
  const subtle = (globalThis as unknown as { crypto: { subtle: SubtleLike } }).crypto.subtle;
  return new Uint8Array(await subtle.digest('SHA-256', data));
};

interface SubtleLike {
  digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer>;
}

/** tape-track-v1 of some bytes (docs/tracks.md), with the chunk hashes. */
export async function trackCommitment(
  bytes: Uint8Array,
  sha256: Sha256,
): Promise<{ commitment: Uint8Array; chunkHashes: Uint8Array }> {
  const count = Math.ceil(bytes.length / CHUNK_BYTES);
  const chunkHashes = new Uint8Array(count * 32);
  for (let i = 0; i < count; i++) {
    const chunk = bytes.subarray(i * CHUNK_BYTES, Math.min(bytes.length, (i + 1) * CHUNK_BYTES));
    chunkHashes.set(await sha256(chunk), i * 32);
  }
  return { commitment: await commitmentOfList(bytes.length, chunkHashes, sha256), chunkHashes };
}

/** The tape-track-v1 commitment of a size and its chunk-hash list. */
export async function commitmentOfList(
  size: number,
  chunkHashes: Uint8Array,
  sha256: Sha256,
): Promise<Uint8Array> {
  const domain = new TextEncoder().encode(TRACK_DOMAIN);
  const input = new Uint8Array(domain.length + 8 + chunkHashes.length);
  input.set(domain, 0);
  let rest = size;
  for (let i = 0; i < 8; i++) {
    input[domain.length + i] = rest % 256;
    rest = Math.floor(rest / 256);
  }
  input.set(chunkHashes, domain.length + 8);
  return sha256(input);
}
