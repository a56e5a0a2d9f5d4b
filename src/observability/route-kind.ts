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

/** Whether a Host names a site: the main listener asks its site host edge (src/http). */
export interface SiteHosts {
  isSiteHost(host: string): boolean;
}

/**
 * The kind of a request on the main listener, read when it has been answered (the listener
 * has made its target origin-form by then): a site host as the site host edge says (the
 * gateway's one HostRouter), else the path prefix.
 */
export class MainRouteKinds {
  constructor(private readonly hosts: SiteHosts) {}

  of(req: IncomingMessage): RouteKind {
    const host = req.headers.host;
    if (typeof host === 'string' && this.hosts.isSiteHost(host)) return 'site';
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
