import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * Metrics of the process rather than of one gateway app: Node's default metrics (prefixed
 * `tape_`) and chain RPC calls (every ChainRpc of the process, the CLI's too).
 * The admin listener merges this registry with the app's own (GatewayMetrics).
 */
export const processRegistry = new Registry();

let defaultsOn = false;

/** Node's default metrics, once, when a gateway app exists (not in the CLI, which loads ChainRpc). */
export function enableDefaultMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ register: processRegistry, prefix: 'tape_' });
}

/** Chain RPC outcomes: `ok` or a ChainErrorKind (program, transaction, unreachable, rpc, timeout). */
const chainCalls = new Counter({
  name: 'tape_chain_rpc_calls_total',
  help: 'Chain RPC calls made by the gateway, by outcome (ok or the error kind).',
  labelNames: ['outcome'] as const,
  registers: [processRegistry],
});
const chainErrors = new Counter({
  name: 'tape_chain_rpc_errors_total',
  help: 'Chain RPC calls that failed, by error kind.',
  labelNames: ['kind'] as const,
  registers: [processRegistry],
});
const chainSeconds = new Histogram({
  name: 'tape_chain_rpc_duration_seconds',
  help: 'Chain RPC call latency in seconds.',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [processRegistry],
});

/** Records one chain RPC call that took `seconds`; `errorKind` when it failed. */
export function observeChainCall(seconds: number, errorKind?: string): void {
  chainSeconds.observe(seconds);
  chainCalls.inc({ outcome: errorKind ?? 'ok' });
  if (errorKind !== undefined) chainErrors.inc({ kind: errorKind });
}
