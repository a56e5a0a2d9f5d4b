/** Where a stray rejection is reported: the gateway's JSON logger, or the CLI's stderr. */
export type RejectionReporter = (reason: string) => void;

/**
 * Keeps the process alive when a library drops a promise. web3.js's `confirmTransaction` asks
 * `getSignatureStatus` in a promise nobody awaits; when that request fails (a provider resets
 * the connection), Node's default is to end the process on the unhandled rejection: the whole
 * gateway, HTTP and S3 with it, for a failure the confirmation recovers from on its own (the
 * signature subscription still answers). Every caller of our own awaits its promises, so a
 * rejection nobody handles is a library's: it is reported (one line, never silently dropped)
 * and the process goes on. Uncaught exceptions keep Node's default: state after a throw is
 * unknown, and a supervisor restarts the process.
 *
 * Returns a function that removes the handler (for tests).
 */
export function keepRunningOnUnhandledRejections(
  report: RejectionReporter,
  target: NodeJS.EventEmitter = process,
): () => void {
  const onRejection = (reason: unknown) => report(describeReason(reason));
  target.on('unhandledRejection', onRejection);
  return () => target.off('unhandledRejection', onRejection);
}

function describeReason(reason: unknown): string {
  if (reason instanceof Error) return `${reason.name}: ${reason.message}`;
  try {
    return String(reason);
  } catch {
    return 'a value that cannot be printed';
  }
}
