// First: every module loaded after it compiles through the code cache.
import './startup/cached-start';
import 'reflect-metadata';
import { ConfigError, loadConfig } from './config/config-loader';
import { embedLocalNetwork } from './embedded-network';
import { AdminServer } from './admin/admin-server';
import { GatewayMetrics } from './observability/gateway-metrics';
import { closeGatewayApp, createGatewayApp } from './gateway-app';
import { JsonLogger } from './logging/json-logger';
import { resolveLogFormat } from './logging/log-format';
import { GATEWAY_USAGE, GatewayArgsError, parseGatewayArgs } from './gateway-args';
import { collectReadyInfo, readyFields, readyLine } from './ready-line';
import { keepRunningOnUnhandledRejections } from './logging/unhandled-rejections';
import { GATEWAY_NODE_FLAGS, missingNodeFlags } from './node-flags';
import { anchorTickShape } from './http/shape-anchors';
import { descriptorLimitWarning, listenerCaps, openFilesLimit } from './descriptor-limit';

let logger: JsonLogger | undefined;

async function main(): Promise<void> {
  // Before startup's garbage collections (src/http/shape-anchors.ts).
  anchorTickShape();
  let config;
  let args;
  try {
    args = parseGatewayArgs(process.argv.slice(2));
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    if (err instanceof GatewayArgsError) process.stderr.write(GATEWAY_USAGE);
    process.exit(err instanceof GatewayArgsError ? 2 : 1);
  }
  if (args.help) {
    process.stdout.write(GATEWAY_USAGE);
    return;
  }
  if (args.logFormat) config.gateway.log_format = args.logFormat;
  logger = new JsonLogger(config.gateway.log_level, {
    format: resolveLogFormat(config.gateway.log_format, process.stdout.isTTY === true),
    readyFirst: true,
  });
  const log = logger;
  keepRunningOnUnhandledRejections((reason) =>
    log.error({ event: 'unhandled_rejection', reason }, undefined, 'gateway'),
  );
  const missing = missingNodeFlags();
  if (missing.length > 0) {
    log.warn(
      `started without ${missing.join(' ')}: run \`node ${GATEWAY_NODE_FLAGS.join(' ')} dist/main.js\` ` +
        '(as `npm start` does); without it an idle gateway serves about 25% fewer requests per ' +
        'second once traffic comes (docs/operator.md, "Node flags")',
      'gateway',
    );
  }
  // Before the local network is embedded: it sets chain.rpc_url, and its listeners count here.
  const lowLimit = descriptorLimitWarning(openFilesLimit(), listenerCaps(config));
  if (lowLimit) log.warn(lowLimit, 'gateway');
  const network = await embedLocalNetwork(config, log);
  const app = await createGatewayApp(config, log);
  network?.reportTo(app.get(GatewayMetrics));
  await app.listen(config.gateway.port, config.gateway.host);
  const adminUrl = await app.get(AdminServer).listen();
  const info = await collectReadyInfo(app, config, { embedded: network !== null, adminUrl });
  log.ready(readyLine(info), readyFields(info));

  // Graceful shutdown: new requests answered 503 at once, the listeners drained (requests in
  // flight finish), every module's shutdown hooks run, exit 0 (closeGatewayApp). Past the grace
  // period, leave anyway.
  let closing = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (closing) return;
      closing = true;
      log.log({ event: 'shutdown', signal }, 'gateway');
      setTimeout(() => process.exit(1), config.gateway.shutdown_grace_ms).unref();
      closeGatewayApp(app, config.gateway.shutdown_grace_ms)
        .then(() => network?.close())
        .then(
          () => process.exit(0),
          (err: unknown) => {
            log.error(`shutdown failed: ${(err as Error).message}`);
            process.exit(1);
          },
        );
    });
  }
}

main().catch((err: unknown) => {
  // What start-up held back explains the failure (src/logging/ready-first-stream.ts).
  logger?.releaseHeld();
  // A config error found while modules start is one line naming the key, like loadConfig's.
  process.stderr.write(
    err instanceof ConfigError
      ? `${err.message}\n`
      : `gateway failed to start: ${(err as Error).message}\n`,
  );
  process.exit(1);
});
