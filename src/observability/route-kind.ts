import type { IncomingMessage } from 'node:http';

/** The bounded set of route kinds requests are counted and logged by. */
export type RouteKind = 'site' | 'object' | 'upload' | 's3' | 'rpc' | 'health' | 'admin' | 'other';

export const ROUTE_KINDS: readonly RouteKind[] = [
  'site',
  'object',
  'upload',
  's3',
  'rpc',
  'health',
  'admin',
  'other',
];

/** Where a Host header goes: the gateway's one HostRouter (src/domains), handed in. */
export interface HostRoutes {
  route(host: string): { kind: string };
}

/**
 * The kind of a request on the main listener, read when it has been answered (the site edge
 * has made its target origin-form by then): a site host by the gateway's one HostRouter, else
 * the path prefix.
 */
export class MainRouteKinds {
  constructor(private readonly hosts: HostRoutes) {}

  of(req: IncomingMessage): RouteKind {
    const host = req.headers.host;
    if (typeof host === 'string' && this.hosts.route(host).kind !== 'gateway') return 'site';
    return pathKind(req.url ?? '/');
  }
}

function pathKind(url: string): RouteKind {
  if (url.startsWith('/site/')) return 'site';
  // A peer's raw track (`/tracks/{hex}`, docs/peers.md) is an object read too.
  if (url.startsWith('/object/') || url.startsWith('/tracks/')) return 'object';
  if (url.startsWith('/upload/') || url === '/upload') return 'upload';
  if (url === '/healthz' || url.startsWith('/healthz?')) return 'health';
  return 'other';
}
