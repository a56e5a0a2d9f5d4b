// First: every module loaded after it compiles through the code cache.
import './startup/cached-start';
import 'reflect-metadata';
import { GatewayIdentity } from './chain/gateway-identity';
import { ConfigError, loadConfig } from './config/config-loader';
import { embedLocalNetwork } from './embedded-network';
import { AdminServer } from './admin/admin-server';
import { createGatewayApp } from './gateway-app';
import { JsonLogger } from './logging/json-logger';
import { keepRunningOnUnhandledRejections } from './logging/unhandled-rejections';
import { GATEWAY_NODE_FLAGS, missingNodeFlags } from './node-flags';
import { anchorTickShape } from './http/shape-anchors';
import { descriptorLimitWarning, listenerCaps, openFilesLimit } from './descriptor-limit';

async function main(): Promise<void> {
  // Before startup's garbage collections (src/http/shape-anchors.ts).
  anchorTickShape();
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
  const logger = new JsonLogger(config.gateway.log_level);
  keepRunningOnUnhandledRejections((reason) =>
    logger.error({ event: 'unhandled_rejection', reason }, undefined, 'gateway'),
  );
  const missing = missingNodeFlags();
  if (missing.length > 0) {
    logger.warn(
      `started without ${missing.join(' ')}: run \`node ${GATEWAY_NODE_FLAGS.join(' ')} dist/main.js\` ` +
        '(as `npm start` does); without it an idle gateway serves about 25% fewer requests per ' +
        'second once traffic comes (docs/operator.md, "Node flags")',
      'gateway',
    );
  }
  // Before the local network is embedded: it sets chain.rpc_url, and its listeners count here.
  const lowLimit = descriptorLimitWarning(openFilesLimit(), listenerCaps(config));
  if (lowLimit) logger.warn(lowLimit, 'gateway');
  const network = await embedLocalNetwork(config, logger);
  const app = await createGatewayApp(config, logger);
  await app.listen(config.gateway.port, config.gateway.host);
  await app.get(AdminServer).listen();
  logger.log(
    {
      event: 'listening',
      url: `http://${config.gateway.host}:${config.gateway.port}`,
      // Tape owners delegate to this key for S3 sync (`tape delegate <key>`).
      gateway_key: app.get(GatewayIdentity).publicKey.toBase58(),
    },
    'gateway',
  );

  // Graceful shutdown: stop accepting, let in-flight requests finish (Fastify's close waits for
  // them), run every module's shutdown hooks, exit 0. Past the grace period, leave anyway.
  let closing = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (closing) return;
      closing = true;
      logger.log({ event: 'shutdown', signal }, 'gateway');
      setTimeout(() => process.exit(1), config.gateway.shutdown_grace_ms).unref();
      app
        .close()
        .then(() => network?.close())
        .then(
          () => process.exit(0),
          (err: unknown) => {
            logger.error(`shutdown failed: ${(err as Error).message}`);
            process.exit(1);
          },
        );
    });
  }
}

main().catch((err: unknown) => {
  // A config error found while modules start is one line naming the key, like loadConfig's.
  process.stderr.write(
    err instanceof ConfigError
      ? `${err.message}\n`
      : `gateway failed to start: ${(err as Error).message}\n`,
  );
  process.exit(1);
});
