import { base64Decode, equalBytes, hex } from './bytes';
import { CHUNK_BYTES, ProofEntry, Sha256, TapeProof, VerifyInput } from './proof-format';
import { Refusal } from './refusal';
import { commitmentOfList, trackCommitment } from './track-commitment';

/**
 * Steps 4 and 5 for the bytes (docs/verify.md): the content proof (chunk-hash list or segment
 * manifest) against the entry's commitment, then the body against it, chunk by chunk.
 */

/** A content proof checked against its entry: what the body's bytes are compared with. */
export type CheckedContent =
  { chunkHashes: Uint8Array } | { segments: { size: number; commitment: string }[] };

export async function checkedContent(
  entry: ProofEntry,
  content: NonNullable<TapeProof['content']>,
  sha256: Sha256,
): Promise<CheckedContent> {
  if (entry.location.kind === 'stream') {
    if (!('manifest' in content))
      throw new Refusal('content_proof_mismatch', 'a streamed file needs its segment manifest');
    const bytes = base64Decode(content.manifest);
    const { commitment } = await trackCommitment(bytes, sha256);
    if (hex(commitment) !== entry.commitment || bytes.length !== entry.location.manifestBytes)
      throw new Refusal('content_proof_mismatch', 'the segment manifest is not the entry’s');
    const manifest = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as {
      size: number;
      segments: { size: number; commitment: string }[];
    };
    const sum = manifest.segments.reduce((s, seg) => s + seg.size, 0);
    if (manifest.size !== entry.size || sum !== entry.size)
      throw new Refusal('content_proof_mismatch', 'the segment manifest’s size is not the entry’s');
    return { segments: manifest.segments };
  }
  if (!('chunkHashes' in content))
    throw new Refusal('content_proof_mismatch', 'a file needs its chunk-hash list');
  const list = base64Decode(content.chunkHashes);
  if (
    list.length !== Math.ceil(entry.size / CHUNK_BYTES) * 32 ||
    hex(await commitmentOfList(entry.size, list, sha256)) !== entry.commitment
  )
    throw new Refusal('content_proof_mismatch', 'the chunk-hash list is not the entry’s');
  return { chunkHashes: list };
}

export async function checkBody(
  body: Uint8Array,
  entry: ProofEntry,
  content: CheckedContent,
  sha256: Sha256,
): Promise<void> {
  if (body.length !== entry.size) {
    const at = Math.min(body.length, entry.size);
    throw new Refusal('size_mismatch', `${body.length} bytes served, the entry has ${entry.size}`, [
      at,
      Math.max(body.length, entry.size) - 1,
    ]);
  }
  if ('chunkHashes' in content) {
    for (let i = 0; i * CHUNK_BYTES < body.length; i++) {
      const start = i * CHUNK_BYTES;
      const end = Math.min(body.length, start + CHUNK_BYTES);
      const got = await sha256(body.subarray(start, end));
      if (!equalBytes(got, content.chunkHashes.subarray(i * 32, i * 32 + 32))) {
        throw new Refusal('content_mismatch', `chunk ${i} does not match its hash`, [
          start,
          end - 1,
        ]);
      }
    }
    return;
  }
  let start = 0;
  for (let i = 0; i < content.segments.length; i++) {
    const seg = content.segments[i];
    const bytes = body.subarray(start, start + seg.size);
    if (hex((await trackCommitment(bytes, sha256)).commitment) !== seg.commitment) {
      throw new Refusal('content_mismatch', `segment ${i} does not match its commitment`, [
        start,
        start + seg.size - 1,
      ]);
    }
    start += seg.size;
  }
}

export async function checkDigest(
  headers: VerifyInput['headers'],
  body: Uint8Array,
  sha256: Sha256,
): Promise<void> {
  const digest = headers?.['content-digest'];
  if (digest === undefined) return;
  const match = /(?:^|,)\s*sha-256=:([A-Za-z0-9+/=]+):/.exec(digest);
  if (!match) return;
  if (!equalBytes(base64Decode(match[1]), await sha256(body)))
    throw new Refusal('header_mismatch', 'Content-Digest is not the SHA-256 of the body');
}
