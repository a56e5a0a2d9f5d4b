import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { sendFrameworkError, writeClientError } from './http/framework-errors';
import { applyListenerTimeouts, watchBodyIdle } from './http/listener-timeouts';
import { capGatewayListener } from './http/connection-cap';
import { TrustedProxies } from './http/trusted-proxies';
import { AppConfig } from './config/app-config';
import { JsonLogger } from './logging/json-logger';
import { registerRefusedTargetRoute, rewriteTarget } from './http/target-rewrite';
import { ShutdownSignal } from './http/shutdown-signal';
import { drainBudgetMs, ListenerDrain } from './http/listener-drain';

/** Paths longer than this are refused before routing (the site route checks 1024-byte paths). */
const MAX_URL_BYTES = 8192;

/** Builds the gateway application (not listening), as production and e2e tests both use it. */
export async function createGatewayApp(
  config: AppConfig,
  logger = new JsonLogger(config.gateway.log_level),
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreDuplicateSlashes: false, maxParamLength: MAX_URL_BYTES },
    // Absolute-form targets become origin-form; site requests never get here: the main
    // listener (src/http/main-listener.ts) hands them to the site edge before Fastify.
    rewriteUrl: rewriteTarget as (req: unknown) => string,
    // Requests refused before routing get the gateway's answers, not Fastify's or Node's JSON.
    frameworkErrors: sendFrameworkError,
    clientErrorHandler: writeClientError,
  });
  // Request bodies are streams handed to their route (uploads); no body is buffered by default.
  const fastify = adapter.getInstance();
  applyListenerTimeouts(fastify.server, config.gateway);
  const trusted = TrustedProxies.parse(config.gateway.metering.trusted_proxies);
  capGatewayListener(
    fastify.server,
    config.gateway,
    'main',
    (event) => logger.warn(event, 'gateway'),
    (address) => trusted.containsAddress(address),
  );
  // A hook, not a `request` listener: the main listener expects to be the server's only one.
  fastify.addHook('onRequest', (request, _reply, done) => {
    watchBodyIdle(request.raw, config.gateway.body_idle_timeout_ms);
    done();
  });
  // No answer of the gateway is ever sniffed into another type (a JSON body into a page). The
  // site and object routes set it themselves (their edges answer before Fastify); added
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
  return NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger,
    bodyParser: false,
    // A module that fails to start (a ConfigError) reaches main's one-line report, not Nest's log.
    abortOnError: false,
  });
}

/**
 * Closes the gateway application within `graceMs` (`gateway.shutdown_grace_ms`), in three steps:
 *
 * 1. the shutdown signal: the listeners (main and S3) answer every new request 503 with
 *    `Connection: close` (src/http/shutdown-signal.ts);
 * 2. the drain: they stop accepting connections, close the idle ones, and the requests in flight
 *    finish, for at most `drainBudgetMs(graceMs)`; those still running then are cut
 *    (src/http/listener-drain.ts);
 * 3. Nest closes the modules (their `onModuleDestroy`: meter stores, Redis, the chain
 *    connection) and the listeners, in the rest of the grace period.
 *
 * In this order no request runs in an edge, a route or an S3 operation whose dependencies are
 * closed.
 */
export async function closeGatewayApp(
  app: INestApplicationContext,
  graceMs: number,
): Promise<void> {
  app.get(ShutdownSignal).begin();
  await app.get(ListenerDrain).drain(drainBudgetMs(graceMs));
  await app.close();
}
