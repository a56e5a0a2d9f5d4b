import type { Server, Socket } from 'node:net';
import type { GatewayConfig } from '../config/app-config';

export interface ConnectionCapOptions {
  /** Open connections one client address may hold on this listener; 0 turns the cap off. */
  maxPerAddress: number;
  /**
   * Peers not capped (by socket address): the trusted proxies, whose one address carries the
   * connections of many clients (their own limits, and the metering per forwarded address,
   * bound those).
   */
  exempt?: (address: string) => boolean;
  /**
   * Told about refused connections: the first one at once, then at most once a minute with the
   * count since (a flood is one log line a minute, not one per socket).
   */
  onRefused?: (report: { address: string; refused: number }) => void;
}

/** How often, at most, refusals are reported. */
const REPORT_EVERY_MS = 60_000;

/**
 * A per-client cap on the open connections of one listener (docs/operator.md, "Connection
 * limits"). Without it, idle sockets from one address could take every descriptor of the process
 * (`ulimit -n`), and with them every listener, the local network's RPC and the files the gateway
 * opens. A connection past the cap is closed as soon as it is accepted, before Node's HTTP
 * server gives it a parser or a timer, so refusing costs one accept and one close.
 *
 * The count is by socket address: at the TCP level there is nothing else (a forwarded address is
 * only known once a request's headers are read, and one proxy connection carries requests of
 * many clients). IPv6 peers count by their /64, the unit one subscriber gets, as the metering
 * does; IPv4-mapped peers as the IPv4 address. Installed on every listener: main, S3, admin, and
 * the local network's JSON-RPC and PubSub.
 */
export function capConnectionsPerAddress(server: Server, options: ConnectionCapOptions): void {
  const max = options.maxPerAddress;
  if (max <= 0) return;
  const open = new Map<string, number>();
  const report = refusalReporter(options.onRefused);
  // First of the 'connection' listeners: a refused socket never reaches the HTTP server's.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    // No address (a socket already reset by its peer): nothing to count, Node drops it.
    if (!address || options.exempt?.(address)) return;
    const key = connectionKey(address);
    const count = open.get(key) ?? 0;
    if (count >= max) {
      socket.destroy();
      report(key);
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}

/**
 * The gateway's own listeners (main, S3, admin): `gateway.max_connections_per_address`,
 * refusals reported as a warning naming the listener; `exempt`: the trusted proxies where the
 * listener believes their forwarding headers (main, S3).
 */
export function capGatewayListener(
  server: Server,
  gateway: GatewayConfig,
  listener: 'main' | 's3' | 'admin',
  warn: (event: Record<string, unknown>) => void,
  exempt?: (address: string) => boolean,
): void {
  const maxPerAddress = gateway.max_connections_per_address;
  capConnectionsPerAddress(server, {
    maxPerAddress,
    exempt,
    onRefused: ({ address, refused }) =>
      warn({ event: 'connections_refused', listener, address, refused, cap: maxPerAddress }),
  });
}

function refusalReporter(onRefused: ConnectionCapOptions['onRefused']): (address: string) => void {
  let refused = 0;
  let lastReport = -Infinity;
  return (address) => {
    if (!onRefused) return;
    refused++;
    const now = Date.now();
    if (now - lastReport < REPORT_EVERY_MS) return;
    lastReport = now;
    onRefused({ address, refused });
    refused = 0;
  };
}

/**
 * What one client is, from a socket's address: an IPv4 address (also when IPv4-mapped, as a
 * dual-stack listener reports it), or an IPv6 address's /64 (one subscriber's network, as the
 * metering counts it: an attacker with a /64 has 2^64 addresses).
 */
export function connectionKey(address: string): string {
  if (!address.includes(':')) return address;
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  const bare = address.split('%', 1)[0].toLowerCase();
  const [head, tail] = bare.split('::', 2);
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  const groups =
    tail === undefined
      ? front
      : [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
