import { readFileSync } from 'node:fs';
import type { AppConfig } from './config/app-config';

/**
 * Descriptors the gateway needs besides client connections: its own files (ledger, WAL, track
 * store, spool, logs), connections it opens (Redis, the RPC, the track bucket), and Node's own.
 * About 60 at rest here; the rest is headroom for reads and writes in flight.
 */
export const RESERVED_DESCRIPTORS = 256;

/**
 * The soft "Max open files" limit of this process (`ulimit -n`) from `/proc/self/limits`:
 * Infinity when unlimited, undefined where there is no such file (not Linux). Node raises the
 * soft limit to the hard one as it starts, so this is what the process really has.
 */
export function openFilesLimit(
  read: () => string = () => readFileSync('/proc/self/limits', 'utf8'),
): number | undefined {
  let text: string;
  try {
    text = read();
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  if (soft === undefined) return undefined;
  if (soft === 'unlimited') return Infinity;
  const limit = Number(soft);
  return Number.isInteger(limit) ? limit : undefined;
}

/** Per-address connection caps of the listeners this process opens. */
export function listenerCaps(config: AppConfig): { listener: string; perAddress: number }[] {
  const gateway = config.gateway.max_connections_per_address;
  const caps = [
    { listener: 'main', perAddress: gateway },
    { listener: 's3', perAddress: gateway },
  ];
  if (config.gateway.admin.port !== 0) caps.push({ listener: 'admin', perAddress: gateway });
  // Embedded only without an RPC of its own (src/embedded-network.ts).
  if (!config.chain.rpc_url) {
    caps.push(
      { listener: 'rpc', perAddress: config.localnet.rpc_max_connections_per_address },
      { listener: 'pubsub', perAddress: config.localnet.rpc_ws_max_connections_per_address },
    );
  }
  return caps;
}

/**
 * A warning when one client address, holding every connection the caps allow it on every
 * listener, would leave fewer than RESERVED_DESCRIPTORS for the gateway itself: the caps then
 * do not keep one client from taking the process offline. Undefined when the limit is enough
 * (or unknown). A cap of 0 (off) is always too much for a finite limit.
 */
export function descriptorLimitWarning(
  limit: number | undefined,
  caps: { listener: string; perAddress: number }[],
): string | undefined {
  if (limit === undefined || limit === Infinity) return undefined;
  if (caps.some((c) => c.perAddress === 0)) {
    const off = caps.filter((c) => c.perAddress === 0).map((c) => c.listener);
    return (
      `the descriptor limit (ulimit -n) is ${limit} and connections per client address are not ` +
      `capped on ${off.join(', ')}: one client can take every descriptor and the gateway with ` +
      'them (docs/operator.md, "Connection limits")'
    );
  }
  const perClient = caps.reduce((sum, c) => sum + c.perAddress, 0);
  const needed = perClient + RESERVED_DESCRIPTORS;
  if (limit >= needed) return undefined;
  const listeners = caps.map((c) => `${c.listener} ${c.perAddress}`).join(', ');
  return (
    `the descriptor limit (ulimit -n) is ${limit}, low for the connection caps: one client ` +
    `address may hold ${perClient} connections (${listeners}) and the gateway keeps ` +
    `${RESERVED_DESCRIPTORS} for itself, ${needed} in all. Raise the limit (systemd ` +
    `LimitNOFILE=, docker --ulimit nofile=, ulimit -n) to at least ${needed}, or lower ` +
    'gateway.max_connections_per_address / localnet.rpc_max_connections_per_address / ' +
    'localnet.rpc_ws_max_connections_per_address ' +
    '(docs/operator.md, "Connection limits")'
  );
}
