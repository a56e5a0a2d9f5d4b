import { FailureReason } from './proof-format';

/** A check that fails: thrown inside the core, turned into a `Refused` verdict at its edge. */
export class Refusal extends Error {
  constructor(
    reason: FailureReason,
    message: string,
    readonly range?: [number, number],
  ) {
    super(message);
    this.detail = range ? { reason, message, range } : { reason, message };
  }
  readonly detail: { reason: FailureReason; message: string; range?: [number, number] };
}
