import { createHash } from 'node:crypto';
import { FailureReason, Sha256, Verdict } from './tape-verifier';

/** How the specs of the verifier core run it and read its verdicts. */

/** node:crypto's SHA-256, as the CLI hands it to the core. */
export const sha256: Sha256 = (data) => createHash('sha256').update(data).digest();

/** The verdict is a refusal for `reason` (and, when given, names the bytes `range`). */
export function expectRefused(v: Verdict, reason: FailureReason, range?: [number, number]): void {
  expect(v).toMatchObject({ ok: false, reason });
  if (range) expect(v.ok === false && v.range).toEqual(range);
}
