/** One failure, as `tape verify` prints it: the file, the bytes, the reason. */
export interface VerifyFailure {
  file: string;
  url: string;
  reason: string;
  message: string;
  range?: [number, number];
}

/**
 * What `tape verify` prints (docs/cli.md, "tape verify"): the version and slot it checked
 * against, the files and bytes checked, or the first failure.
 */
export interface VerifyReport {
  ok: boolean;
  tape: string;
  version?: number;
  slot?: number;
  files: number;
  bytes: number;
  failure?: VerifyFailure;
}

/** Thrown inside `tape verify`'s checks: the first failure ends the run with its report. */
export class Failed extends Error {
  constructor(readonly failure: VerifyFailure) {
    super(failure.message);
  }
}

/** The failure of `file` (fetched from `url`) for `reason`, to throw. */
export function fail(file: string, url: string, reason: string, message: string): Failed {
  return new Failed({ file, url, reason, message });
}
