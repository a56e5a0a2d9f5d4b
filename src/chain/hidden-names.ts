/**
 * Hidden object names: a name with a `/`-separated segment that starts with `.` (`.env`,
 * `.well-known/acme-challenge/x`, `a/.git/config`, and `.`/`..` themselves). The spec publishes
 * none of them ("Hidden files, symlinks, `.well-known/`: never uploaded or published"):
 *
 * - the tape program refuses SetName for them (`invalid name`, 6011; docs/program.md);
 * - client builders refuse them before signing anything (`TapeInstructions.setName`);
 * - the gateway never serves, lists or accepts them, whatever a tape holds: a program deployed
 *   before the rule may have stored such names, so this check at the edge is the guarantee.
 *
 * The same rule, byte for byte, is in `program/src/name_instructions.c` and the oracle.
 */

/** The detail the program logs with `invalid name`, and the message clients show. */
export const HIDDEN_NAME_RULE =
  'a name segment starts with "." (hidden files and .well-known/ are never published)';

/** True when some `/`-separated segment of `name` starts with `.`. */
export function isHiddenName(name: string): boolean {
  return name.charCodeAt(0) === 46 /* . */ || name.includes('/.');
}

/** Thrown by client-side builders for a name the program would refuse. */
export class HiddenNameError extends Error {
  constructor(readonly objectName: string) {
    super(`refused name ${JSON.stringify(objectName.slice(0, 200))}: ${HIDDEN_NAME_RULE}`);
    this.name = 'HiddenNameError';
  }
}
