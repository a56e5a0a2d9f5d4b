import { checkHeaders, checkPageAnswer, checkRedirectAnswer } from './answer-checks';
import { base64Decode, unhex } from './bytes';
import { checkAsked, checkVersion } from './chain-version';
import { checkBody, checkDigest, checkedContent } from './content-checks';
import {
  Accepted,
  FailureReason,
  PROOF_FORMAT,
  ProofEntry,
  Refused,
  TapeProof,
  Verdict,
  VerifyInput,
} from './proof-format';
import { checkShape } from './proof-shape';
import { Refusal } from './refusal';
import { checkSiteRules } from './site-rules';
import { decodeRoot, indexNodes, leafFor, VersionNode } from './version-nodes';

export {
  firstRedirectRule,
  matchPath,
  placeholdersOf,
  REDIRECT_STATUSES,
  substitute,
} from '../../versions/rules/redirect-match';
export type { PathParams, RedirectRule, RedirectStatus } from '../../versions/rules/redirect-match';
export { base64Decode } from './bytes';
export { objectAddress, objectAddressParts } from './object-address';
export { CHUNK_BYTES, PROOF_FORMAT } from './proof-format';
export type {
  Accepted,
  EntryLocation,
  FailureReason,
  ProofEntry,
  ProofSelector,
  ProofTarget,
  Refused,
  RpcAccountAnswer,
  Sha256,
  SiteFileTarget,
  SitePageTarget,
  SiteProofTarget,
  SiteRedirectTarget,
  TapeProof,
  Verdict,
  VerifyInput,
} from './proof-format';
export { Refusal } from './refusal';
export { namesForPath } from './site-rules';
export { readTapePointer } from './tape-pointer';
export type { TapePointer } from './tape-pointer';
export { trackCommitment, webCryptoSha256 } from './track-commitment';
export { redirectsOfRules, walkVersion } from './version-nodes';
export type { CheckedVersion } from './version-nodes';

/**
 * The verifier of tape proofs (docs/verify.md): given one RPC answer (getAccountInfo of the
 * tape, with its context slot), a proof a gateway handed out and the bytes it served, it accepts
 * them or names the first file, byte range and reason that fail. This file is its public face
 * (what `GET /_tape/verify.js` exports); the steps live beside it in src/verify/core.
 *
 * No dependencies, on purpose: the `tape verify` command runs it under Node and the gateway
 * serves the very same code to browsers as one ES module (`GET /_tape/verify.js`), so it uses
 * only Uint8Array, TextEncoder/TextDecoder and an injected SHA-256 (WebCrypto's
 * `crypto.subtle.digest` in a browser). Its files import one another and the `_redirects`
 * matching (itself import-free) only; `npm run build` joins them all into the one module
 * (tools/bundle-verify-module.mjs).
 */

/** Checks one answer; never throws for bad input (it is a refusal). */
export async function verifyAnswer(input: VerifyInput): Promise<Verdict> {
  const file = fileOf(input);
  try {
    return await verify(input, file);
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, file, ...err.detail };
    return refused(file, 'malformed_proof', (err as Error).message);
  }
}

function refused(file: string, reason: FailureReason, message: string): Refused {
  return { ok: false, file, reason, message };
}

function fileOf(input: VerifyInput): string {
  const p = input.proof as Partial<TapeProof> | null;
  const t = p && typeof p === 'object' ? p.target : undefined;
  if (t?.kind === 'site' && typeof t.path === 'string') return t.path;
  if (t?.kind === 'object' && typeof t.commitment === 'string') return t.commitment;
  return input.expect?.path ?? input.expect?.commitment ?? '(unknown)';
}

async function verify(input: VerifyInput, file: string): Promise<Verdict> {
  const proof = checkShape(input.proof);
  const { sha256, expect } = input;
  const selector = expect?.selector;
  const target = proof.target;
  checkAsked(proof, expect);

  // 1. The version, against the chain.
  checkVersion(proof, input.rpc, expect);

  // 2. The manifest path, from the root to the entry; a site path's `_redirects` rule.
  const byCommitment = await indexNodes(proof.nodes.map(base64Decode), sha256);
  const rootBytes = byCommitment.get(proof.root);
  if (!rootBytes) throw new Refusal('node_mismatch', `no node of the proof hashes to the root`);
  const root = decodeRoot(rootBytes);
  const head: Accepted = {
    ok: true,
    file,
    tape: proof.tape,
    version: proof.version,
    root: proof.root,
    slot: input.rpc.context.slot,
    checkedBytes: 0,
  };
  if (target.kind === 'site') {
    const has = (name: string): boolean =>
      leafFor(root.names, new TextEncoder().encode(name), byCommitment).entries.some(
        (e) => e.name === name,
      );
    const decided = checkSiteRules(target, root.rules, has);
    if (decided?.kind === 'redirect') {
      const redirect = { status: decided.status, location: decided.location };
      checkRedirectAnswer(input, proof, redirect, selector);
      return { ...head, redirect };
    }
    if (decided?.kind === 'page') {
      checkPageAnswer(input, proof, decided.status);
      return { ...head, builtInPage: decided.status };
    }
  }
  const entry = provenEntry(
    proof,
    target.kind === 'site' ? root.names : root.commits,
    byCommitment,
  );

  // 3. The content proof, against the entry's commitment.
  const content = await checkedContent(entry, proof.content!, sha256);

  // 4. The answer: headers and bytes.
  if (input.status !== undefined && target.kind === 'site' && input.status !== target.status)
    throw new Refusal('header_mismatch', `status ${input.status}, the proof says ${target.status}`);
  checkHeaders(input.headers, proof, entry, selector);
  if (input.body === undefined) return { ...head, entry };
  await checkBody(input.body, entry, content, sha256);
  await checkDigest(input.headers, input.body, sha256);
  return { ...head, entry, checkedBytes: input.body.length };
}

/** The entry the proof's file target names, found through its nodes: the proof's `entry`. */
function provenEntry(
  proof: TapeProof,
  top: VersionNode,
  byCommitment: Map<string, Uint8Array>,
): ProofEntry {
  const target = proof.target;
  if (
    !proof.entry ||
    !proof.content ||
    (target.kind === 'site' && ('location' in target || 'page' in target))
  )
    throw new Refusal('malformed_proof', `not a ${PROOF_FORMAT} proof: entry`);
  const key =
    target.kind === 'site' ? new TextEncoder().encode(target.name) : unhex(target.commitment);
  const found = leafFor(top, key, byCommitment).entries.find((e) =>
    target.kind === 'site' ? e.name === target.name : e.commitment === target.commitment,
  );
  if (!found) throw new Refusal('entry_not_found', `version ${proof.version} has no such entry`);
  if (!sameEntry(found, proof.entry))
    throw new Refusal('entry_mismatch', 'the proof states another entry than its nodes hold');
  return found;
}

function sameEntry(a: ProofEntry, b: ProofEntry): boolean {
  return (
    (b.name === undefined || a.name === b.name) &&
    a.commitment === b.commitment &&
    a.size === b.size &&
    a.contentType === b.contentType &&
    JSON.stringify(a.location) === JSON.stringify(b.location)
  );
}
