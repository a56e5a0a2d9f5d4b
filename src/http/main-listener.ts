import { Injectable, Module, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ListenerDrain, ListenerDrainModule } from './listener-drain';
import { originForm } from './request-target';
import { ShutdownSignal, ShutdownSignalModule } from './shutdown-signal';

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A peer answering on the main listener before Fastify and Nest: given a request and its
 * origin-form URL, it answers and returns true, or returns false having touched nothing.
 */
export interface EdgeRoute {
  tryServe(req: IncomingMessage, res: ServerResponse, url: string): boolean;
}

/**
 * The peer that owns the requests whose Host is not one of the gateway's own (the site edge,
 * src/site/site-edge.ts): it takes every such request, whatever its path, and declines the
 * gateway's hosts.
 */
export interface SiteHostEdge extends EdgeRoute {
  /** Whether requests with this Host value are this peer's, whatever their path. */
  ownsHost(host: string): boolean;
}

/** Wraps the listener's dispatch to see every request and its answer (metrics, access log). */
export type ListenerObserver = (dispatch: RequestListener) => RequestListener;

/**
 * The one entrance of the main listener: the Node server's one `request` listener, installed
 * when the app is bootstrapped. For each request, in this order:
 *
 * 1. the observer registered with `observeWith` (src/observability: metrics and the access log
 *    of every answer) wraps everything below;
 * 2. an absolute-form target is made origin-form (its authority as the Host), so no target form
 *    lets a site host reach a gateway route; one that cannot be goes on to Fastify, which
 *    refuses it (src/http/target-rewrite.ts);
 * 3. the site hosts: the peer registered with `serveSiteHosts` takes every request whose Host
 *    names a site;
 * 4. the gateway host's edge routes, by path prefix, in the order they were added (`/site/`,
 *    `/object/` warm reads): each takes what it answers exactly as its Nest route would;
 * 5. Fastify and Nest, for everything else.
 *
 * Feature rooms register their peers when their module starts (`onModuleInit`), as they
 * register health checks and metrics: they never import each other, and this file knows none of
 * them.
 *
 * Shutdown: from the `ShutdownSignal` on, the listener answers every new request itself, `503`
 * with `Connection: close` (`answerShuttingDown`), on site hosts and the gateway's alike;
 * requests already dispatched finish: the server is drained (`ListenerDrain`,
 * src/http/listener-drain.ts) before any module closes. The gateway's shutdown entry gives the
 * signal and drains before `app.close()` (`closeGatewayApp`, src/gateway-app.ts), because Nest
 * runs `onModuleDestroy` root module first, then by distance, and this module is among the
 * deepest: the meter stores, Redis and the chain connection are closed before a hook of its own
 * would run, and an edge or a Nest route would answer with them closed. Its own
 * `onModuleDestroy` is the fallback for an app closed some other way.
 *
 * Why an edge before Fastify at all: on a cached 4 KiB page or a hot object, Fastify's routing
 * and Nest's per-request pipeline cost about as much CPU as the answer itself (docs/site.md and
 * docs/object.md, "Performance"), and a hostname is not something Fastify's router routes on.
 */
@Injectable()
export class MainListener implements OnApplicationBootstrap, OnModuleDestroy {
  private siteHosts: SiteHostEdge | null = null;
  private routes: readonly { prefix: string; route: EdgeRoute }[] = [];
  private observer: ListenerObserver | null = null;
  private closing = false;
  private installed = false;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    shutdown: ShutdownSignal,
    private readonly drain: ListenerDrain,
  ) {
    shutdown.onBegin(() => {
      this.closing = true;
    });
  }

  /** The peer that takes every request on a site host (one: two would disagree on a Host). */
  serveSiteHosts(edge: SiteHostEdge): void {
    this.beforeInstall('a site host edge');
    if (this.siteHosts !== null) throw new Error('the main listener has a site host edge already');
    this.siteHosts = edge;
  }

  /** An edge route for the gateway's own hosts: tried for URLs that start with `prefix`. */
  addRoute(prefix: string, route: EdgeRoute): void {
    this.beforeInstall(`the edge route ${prefix}`);
    this.routes = [...this.routes, { prefix, route }];
  }

  /** The observer of every request (one: the request observer of src/observability). */
  observeWith(observer: ListenerObserver): void {
    this.beforeInstall('an observer');
    if (this.observer !== null) throw new Error('the main listener has an observer already');
    this.observer = observer;
  }

  /** Whether a request with this Host is a site request (for the observer's route kinds). */
  isSiteHost(host: string): boolean {
    return this.siteHosts !== null && this.siteHosts.ownsHost(host);
  }

  onApplicationBootstrap(): void {
    // An application context (the CLI) has no HTTP server: nothing to install.
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (server) this.install(server);
  }

  /** The fallback when the app is closed without the shutdown signal first (see above). */
  onModuleDestroy(): void {
    this.closing = true;
  }

  /**
   * Becomes the server's one `request` listener, in front of the one it had (Fastify's).
   * Start-up fails when the server does not look as expected: the edge routes exist nowhere else.
   */
  install(server: Server): void {
    const listeners = server.listeners('request');
    if (listeners.length !== 1) {
      throw new Error(
        `the main listener cannot be installed (${listeners.length} request listeners)`,
      );
    }
    const fastify = listeners[0] as RequestListener;
    const dispatch = (req: IncomingMessage, res: ServerResponse): void => {
      if (!this.atEdge(req, res)) fastify.call(server, req, res);
    };
    server.removeListener('request', fastify);
    server.on('request', this.observer === null ? dispatch : this.observer(dispatch));
    this.drain.register('main', server);
    this.installed = true;
  }

  /** Answers the request at the edge; false leaves it untouched (its target made origin-form). */
  private atEdge(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.closing) return answerShuttingDown(res);
    const url = originForm(req);
    if (typeof url !== 'string') return false;
    const siteHosts = this.siteHosts;
    if (siteHosts !== null && siteHosts.tryServe(req, res, url)) return true;
    const routes = this.routes;
    for (let i = 0; i < routes.length; i++) {
      const { prefix, route } = routes[i];
      if (url.startsWith(prefix) && route.tryServe(req, res, url)) return true;
    }
    return false;
  }

  private beforeInstall(what: string): void {
    if (this.installed) throw new Error(`${what} registered after the main listener was installed`);
  }
}

const SHUTTING_DOWN_BODY = 'the gateway is shutting down: retry shortly\n';

/**
 * The answer to every request that arrives once shutdown has begun: nothing behind the listener
 * is asked (its dependencies may be closed already). `Connection: close` ends the kept-alive
 * connection, so the client's next request opens a new one (to another replica, behind a load
 * balancer); `Retry-After` for a client that retries the same gateway; never cached by a CDN.
 */
function answerShuttingDown(res: ServerResponse): true {
  res.writeHead(503, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(SHUTTING_DOWN_BODY),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'retry-after': '5',
    connection: 'close',
  });
  res.end(SHUTTING_DOWN_BODY);
  return true;
}

/** One MainListener for the whole application: the modules that register with it import this. */
@Module({
  imports: [ShutdownSignalModule, ListenerDrainModule],
  providers: [MainListener],
  exports: [MainListener],
})
export class MainListenerModule {}
