import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { AppConfig } from './config/app-config';
import { JsonLogger } from './logging/json-logger';

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
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger,
    bodyParser: false,
  });
  return app;
}
