import 'reflect-metadata';
import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppModule } from '../../src/app.module';
import { ChainModule } from '../../src/chain/chain.module';
import { AppConfig } from '../../src/config/app-config';
import { validateConfig } from '../../src/config/config-loader';
import { DomainsModule } from '../../src/domains/domains.module';
import { embedLocalNetwork, EmbeddedNetwork } from '../../src/embedded-network';
import { JsonLogger } from '../../src/logging/json-logger';
import { MeteringModule } from '../../src/metering/metering.module';
import { createHostRewrite } from '../../src/site/host-rewrite';
import { SiteModule } from '../../src/site/site.module';
import { TracksModule } from '../../src/tracks/tracks.module';
import { UploadModule } from '../../src/tracks/upload/upload.module';

/**
 * The gateway with the site routes, composed as production composes it (the lead wires the
 * same modules in src/app.module.ts and the same rewrite in src/gateway-app.ts): the local
 * network embedded, the track store in a data directory, the upload route for `tape deploy`,
 * metering, host resolution and the site module. Run in a child process by site-gateway.ts.
 */
export interface SiteGatewayOptions {
  site?: Record<string, unknown>;
  metering?: Record<string, unknown>;
  /** Local network settings (epoch_duration_secs, slot_ms, ...). */
  localnet?: Record<string, unknown>;
  port: number;
  localnetPort: number;
  /** Default: a fresh temporary directory, removed on close. */
  dataDir?: string;
  logLevel?: string;
}

export interface SiteGatewayApp {
  app: NestFastifyApplication;
  config: AppConfig;
  rpcUrl: string;
  close(): Promise<void>;
}

@Module({})
class SiteGatewayModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: SiteGatewayModule,
      imports: [
        AppModule.forRoot(config),
        ChainModule,
        TracksModule,
        UploadModule,
        DomainsModule,
        MeteringModule,
        SiteModule,
      ],
    };
  }
}

export async function startSiteGatewayApp(options: SiteGatewayOptions): Promise<SiteGatewayApp> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tape-site-gw-'));
  const config = validateConfig({
    gateway: {
      host: '127.0.0.1',
      port: options.port,
      log_level: options.logLevel ?? 'warn',
      site: options.site ?? {},
      metering: options.metering ?? {},
    },
    storage: { data_dir: dataDir },
    localnet: { port: options.localnetPort, slot_ms: 50, ...(options.localnet ?? {}) },
  });
  const logger = new JsonLogger(config.gateway.log_level);
  let network: EmbeddedNetwork | null = null;
  let app: NestFastifyApplication | undefined;
  try {
    network = await embedLocalNetwork(config, logger);
    app = await NestFactory.create<NestFastifyApplication>(
      SiteGatewayModule.forRoot(config),
      new FastifyAdapter({
        return503OnClosing: true,
        forceCloseConnections: 'idle',
        routerOptions: { ignoreDuplicateSlashes: false, maxParamLength: 8192 },
        rewriteUrl: createHostRewrite(config.gateway.site),
      }),
      { logger, bodyParser: false },
    );
    // The upload route reads the raw request stream: no body parser may consume it first.
    app
      .getHttpAdapter()
      .getInstance()
      .addContentTypeParser('*', (_req, _body, done) => done(null));
    await app.listen(options.port, '127.0.0.1');
  } catch (err) {
    await app?.close();
    await network?.close();
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const running = app;
  return {
    app: running,
    config,
    rpcUrl: config.chain.rpc_url!,
    close: async () => {
      await running.close();
      await network?.close();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
