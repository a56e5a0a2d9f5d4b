import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppModule } from './app.module';
import { sendFrameworkError, writeClientError } from './common/framework-errors';
import { applyListenerTimeouts, watchBodyIdle } from './common/listener-timeouts';
import { AppConfig } from './config/app-config';
import { JsonLogger } from './logging/json-logger';
import { RequestObserver } from './observability/request-observer';
import { MainRouteKinds } from './observability/route-kind';
import { HostRouter } from './domains/host-router';
import { createHostRewrite, registerRefusedTargetRoute, SITE_HOST } from './site/host-rewrite';
import { BuiltInPage, PAGE_CONTENT_TYPE, PAGES } from './site/site-pages';
import { ERROR_PAGE_CSP } from './site/site-policy';

/** Paths longer than this are refused before routing (the site route checks 1024-byte paths). */
const MAX_URL_BYTES = 8192;

/** Builds the gateway application (not listening), as production and e2e tests both use it. */
export async function createGatewayApp(
  config: AppConfig,
  logger = new JsonLogger(config.gateway.log_level),
): Promise<NestFastifyApplication> {
  // The app's one HostRouter, known once Nest has built it (before the first request).
  const hosts: { router?: HostRouter } = {};
  const isSiteHost = (host: string): boolean =>
    hosts.router !== undefined && hosts.router.route(host).kind !== 'gateway';
  const adapter = new FastifyAdapter({
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreDuplicateSlashes: false, maxParamLength: MAX_URL_BYTES },
    // Hostname-served sites are routed before Fastify's router (src/site/host-rewrite.ts).
    rewriteUrl: createHostRewrite(isSiteHost) as (req: unknown) => string,
    // Requests refused before routing get the gateway's answers, not Fastify's or Node's JSON.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: writeClientError,
  });
  // Request bodies are streams handed to their route (uploads); no body is buffered by default.
  const fastify = adapter.getInstance();
  applyListenerTimeouts(fastify.server, config.gateway);
  // A hook, not a `request` listener: the site hot path expects to be the server's only one.
  fastify.addHook('onRequest', (request, _reply, done) => {
    watchBodyIdle(request.raw, config.gateway.body_idle_timeout_ms);
    done();
  });
  // No answer of the gateway is ever sniffed into another type (a JSON body into a page). The
  // site and object routes set it themselves (the site hot path answers before Fastify); added
  // last here, so their header order stays as they wrote it.
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('x-content-type-options')) {
      reply.header('x-content-type-options', 'nosniff');
    }
    done(null, payload);
  });
  // Request targets the host rewrite cannot make origin-form are answered 400 there.
  registerRefusedTargetRoute(fastify);
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_req, _payload, done) => done(null));
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger,
    bodyParser: false,
    // A module that fails to start (a ConfigError) reaches main's one-line report, not Nest's log.
    abortOnError: false,
  });
  hosts.router = app.get(HostRouter);
  // Once Nest has bootstrapped (the site hot path has wrapped the server's listener), as the
  // server starts: metrics and the access log wrap both.
  fastify.addHook('onReady', (done) => {
    observeMainListener(app);
    done();
  });
  return app;
}

/**
 * Metrics and the access log on the main listener: wraps the Node server's request listener
 * (around the site hot path too) and counts each answer by route kind.
 */
export function observeMainListener(app: NestFastifyApplication): void {
  const kinds = new MainRouteKinds(app.get(HostRouter));
  app.get(RequestObserver).wrapServer(app.getHttpServer(), 'main', (req) => kinds.of(req));
}

const SITE_PAGES: Partial<Record<string, BuiltInPage>> = {
  FST_ERR_BAD_URL: PAGES.badPath,
  // Only `/site/:tape` has a parameter to overflow: a tape address that long names no site.
  FST_ERR_MAX_PARAM_LENGTH: PAGES.noSite,
};

/**
 * A URL the router refused. On the site routes (by tape path, or by hostname after the rewrite)
 * the answer is the site's own built-in page, as for every other path that cannot name a file:
 * a browser shows it. Everywhere else it is the stable error body.
 */
function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const onSite =
    (request.raw as { [SITE_HOST]?: true })[SITE_HOST] === true || request.url.startsWith('/site/');
  const page = onSite ? SITE_PAGES[error.code] : undefined;
  if (!page) return sendFrameworkError(error, request, reply);
  void reply
    .code(page.status)
    .header('content-type', PAGE_CONTENT_TYPE)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', ERROR_PAGE_CSP)
    .send(page.body);
}
