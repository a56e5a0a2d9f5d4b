import 'reflect-metadata';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig } from '../../src/config/app-config';
import { validateConfig } from '../../src/config/config-loader';
import { embedLocalNetwork, EmbeddedNetwork } from '../../src/embedded-network';
import { createGatewayApp } from '../../src/gateway-app';
import { JsonLogger } from '../../src/logging/json-logger';
import { anchorTickShape } from '../../src/http/shape-anchors';

/**
 * The gateway as production builds it (src/gateway-app.ts: every module, the host rewrite),
 * with the local network embedded unless `rpcUrl` is given, configured from plain options
 * instead of the environment. Run in a child process by site-gateway.ts.
 */
export interface SiteGatewayOptions {
  site?: Record<string, unknown>;
  metering?: Record<string, unknown>;
  /** Local network settings (epoch_duration_secs, slot_ms, ...). */
  localnet?: Record<string, unknown>;
  port: number;
  localnetPort: number;
  s3Port: number;
  /** Default: a fresh temporary directory, removed on close. */
  dataDir?: string;
  /** Use this chain instead of embedding the local network (a reader gateway). */
  rpcUrl?: string;
  logLevel?: string;
}

export interface SiteGatewayApp {
  app: NestFastifyApplication;
  config: AppConfig;
  rpcUrl: string;
  close(): Promise<void>;
}

export async function startSiteGatewayApp(options: SiteGatewayOptions): Promise<SiteGatewayApp> {
  anchorTickShape(); // as src/main.ts does
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tape-site-gw-'));
  const config = validateConfig({
    gateway: {
      host: '127.0.0.1',
      port: options.port,
      log_level: options.logLevel ?? 'warn',
      site: options.site ?? {},
      metering: options.metering ?? {},
      s3: { port: options.s3Port },
    },
    storage: { data_dir: dataDir },
    localnet: { port: options.localnetPort, slot_ms: 50, ...(options.localnet ?? {}) },
    ...(options.rpcUrl ? { chain: { rpc_url: options.rpcUrl } } : {}),
  });
  const logger = new JsonLogger(config.gateway.log_level);
  let network: EmbeddedNetwork | null = null;
  let app: NestFastifyApplication | undefined;
  try {
    network = await embedLocalNetwork(config, logger);
    app = await createGatewayApp(config, logger);
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
