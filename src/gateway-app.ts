import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { AppConfig } from './config/app-config';
import { JsonLogger } from './logging/json-logger';
import { createHostRewrite } from './site/host-rewrite';

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
    // Hostname-served sites are routed before Fastify's router (src/site/host-rewrite.ts).
    rewriteUrl: createHostRewrite(config.gateway.site) as (req: unknown) => string,
  });
  // Request bodies are streams handed to their route (uploads); no body is buffered by default.
  const fastify = adapter.getInstance();
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_req, _payload, done) => done(null));
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger,
    bodyParser: false,
  });
  return app;
}
