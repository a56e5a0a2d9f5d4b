import { ProofEntry, ProofSelector, TapeProof, VerifyInput } from './proof-format';
import { Refusal } from './refusal';

/**
 * Step 5 (docs/verify.md, "The answer"): what the gateway states about its answer (the status,
 * `X-Tape-Version`, `X-Tape-Commitment`, a redirect's `Location`, a preview's `noindex`) must
 * agree with the proof. The body is checked by content-checks.ts.
 */

/** How a selector reads in a URL (`@3`, `@pr-12`), or `the current version`. */
export function selectorText(selector: ProofSelector | undefined): string {
  if (selector === undefined) return 'the current version';
  return selector.kind === 'pinned' ? `@${selector.version}` : `@${selector.name}`;
}

/**
 * A redirect's answer: its status and `Location` (the rule's target under the site's mount:
 * nothing on a hostname, `/site/{tape}` or `/site/{tape}@<selector>` on the path route; the
 * request's query added when the target has none). Its body is the gateway's own note.
 */
export function checkRedirectAnswer(
  input: VerifyInput,
  proof: TapeProof,
  redirect: { status: number; location: string },
  selector: ProofSelector | undefined,
): void {
  if (input.status !== undefined && input.status !== redirect.status)
    throw new Refusal('header_mismatch', `status ${input.status}, the rule's ${redirect.status}`);
  const headers = input.headers;
  if (!headers) return;
  checkVersionHeader(headers, proof);
  const location = headers['location'];
  if (location === undefined) {
    if (input.status !== undefined)
      throw new Refusal('header_mismatch', 'a redirect without Location');
    return;
  }
  const mounts = ['', `/site/${proof.tape}`];
  if (selector !== undefined) mounts.push(`/site/${proof.tape}${selectorText(selector)}`);
  const ok = mounts.some((mount) => {
    const want = mount + redirect.location;
    if (location === want) return true;
    return !redirect.location.includes('?') && location.startsWith(`${want}?`);
  });
  if (!ok) {
    throw new Refusal(
      'header_mismatch',
      `Location ${location}, the rule's ${redirect.location} (under the site's mount)`,
    );
  }
}

/** Headers the gateway states about the answer must agree with the proof (when present). */
export function checkHeaders(
  headers: VerifyInput['headers'],
  proof: TapeProof,
  entry: ProofEntry,
  selector: ProofSelector | undefined,
): void {
  if (!headers) return;
  const version = checkVersionHeader(headers, proof);
  // A preview must not be indexed: an alias answer that names its version says `noindex`.
  if (
    selector?.kind === 'alias' &&
    version !== undefined &&
    !/(^|[\s,])noindex($|[\s,])/i.test(headers['x-robots-tag'] ?? '')
  )
    throw new Refusal('header_mismatch', 'an alias answer without X-Robots-Tag: noindex');
  const commitment = headers['x-tape-commitment'];
  if (commitment !== undefined && commitment !== entry.commitment)
    throw new Refusal('header_mismatch', `X-Tape-Commitment ${commitment} is not the entry's`);
}

/** A `_redirects` rule's built-in page (no file): its status, and the version when stated. */
export function checkPageAnswer(input: VerifyInput, proof: TapeProof, status: number): void {
  if (input.status !== undefined && input.status !== status)
    throw new Refusal('header_mismatch', `status ${input.status}, the rule's ${status}`);
  if (input.headers) checkVersionHeader(input.headers, proof);
}

/** `X-Tape-Version`, when present, must be the proof's version; returns it. */
function checkVersionHeader(
  headers: NonNullable<VerifyInput['headers']>,
  proof: TapeProof,
): string | undefined {
  const version = headers['x-tape-version'];
  if (version !== undefined && version !== String(proof.version))
    throw new Refusal('header_mismatch', `X-Tape-Version ${version}, the proof's ${proof.version}`);
  return version;
}
