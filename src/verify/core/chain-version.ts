import { selectorText } from './answer-checks';
import { base64Decode } from './bytes';
import { ProofSelector, TapeProof, VerifyInput } from './proof-format';
import { Refusal } from './refusal';
import { readTapePointer } from './tape-pointer';

/**
 * The proof must be about exactly what the client asked for: the tape, the site path or the
 * object, the version selector of a pinned or alias URL (`wrong_target`).
 */
export function checkAsked(proof: TapeProof, expect: VerifyInput['expect']): void {
  const target = proof.target;
  if (expect?.tape !== undefined && expect.tape !== proof.tape)
    throw new Refusal('wrong_target', `the proof is of tape ${proof.tape}, not ${expect.tape}`);
  if (expect?.path !== undefined && (target.kind !== 'site' || target.path !== expect.path))
    throw new Refusal('wrong_target', `the proof is not of the path ${expect.path}`);
  if (
    expect?.commitment !== undefined &&
    (target.kind !== 'object' || target.commitment !== expect.commitment)
  )
    throw new Refusal('wrong_target', `the proof is not of the object ${expect.commitment}`);
  const selector = expect?.selector;
  if (selector !== undefined && selectorText(proof.selector) !== selectorText(selector))
    throw new Refusal('wrong_target', `the proof is not of ${selectorText(selector)}`);
}

/**
 * Step 1 (docs/verify.md): the proof's version and root against the client's own RPC answer. A
 * site answer is of the current version, a pinned one of its number, an alias one of the version
 * the alias table names; every one a kept version whose root on chain is the proof's.
 */
export function checkVersion(
  proof: TapeProof,
  rpc: VerifyInput['rpc'],
  expect: VerifyInput['expect'],
): void {
  const selector: ProofSelector | undefined = expect?.selector;
  const value = rpc?.value;
  if (!value) throw new Refusal('no_tape', `the RPC has no account ${proof.tape}`);
  const pointer = readTapePointer(base64Decode(String(value.data[0])));
  if (!pointer) throw new Refusal('no_tape', `${proof.tape} is not a tape account`);
  if (pointer.current === 0) throw new Refusal('no_version', 'the tape has no version published');
  const pinned = selector?.kind === 'pinned' ? selector.version : expect?.version;
  if (pinned !== undefined && proof.version !== pinned)
    throw new Refusal('wrong_target', `the proof is of version ${proof.version}, not ${pinned}`);
  if (selector?.kind === 'alias') {
    const alias = pointer.aliases.find((a) => a.name === selector.name);
    if (!alias) throw new Refusal('alias_mismatch', `the tape has no alias ${selector.name}`);
    if (alias.version !== proof.version) {
      throw new Refusal(
        'alias_mismatch',
        `the alias ${selector.name} points at version ${alias.version}, the answer is of version ${proof.version} (slot ${rpc.context.slot})`,
      );
    }
  } else if (
    proof.target.kind === 'site' &&
    pinned === undefined &&
    proof.version !== pointer.current
  ) {
    throw new Refusal(
      proof.version < pointer.current ? 'stale_version' : 'version_not_kept',
      `the answer is of version ${proof.version}; the tape's current version is ${pointer.current} (slot ${rpc.context.slot})`,
    );
  }
  const kept = pointer.kept.find((k) => k.version === proof.version);
  if (!kept) throw new Refusal('version_not_kept', `the tape keeps no version ${proof.version}`);
  if (kept.root !== proof.root) {
    throw new Refusal(
      'root_mismatch',
      `version ${proof.version}'s root on chain is ${kept.root}, the proof's ${proof.root} was never published`,
    );
  }
}
