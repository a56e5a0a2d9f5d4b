import 'reflect-metadata';
import pino from 'pino';
import { loadConfig } from '../config/config-loader';
import { readOrCreateKeypair as loadOrCreateKeypair } from '../chain/keypair-file';
import { startLocalnet } from './localnet';
import { localnetOptions } from './localnet-options';
import { makeDirectory } from '../config/directories';
import { gatewayKeypairPath } from '../config/gateway-role';

/**
 * `npm run localnet`: the local network alone, configured like the gateway (`localnet.*`,
 * `storage.data_dir`, `chain.program_id`, `chain.gateway_keypair`), logging JSON lines.
 * The storage authority is the gateway's key (`<data_dir>/gateway-key.json`, created if missing),
 * so a gateway started later on the same data dir certifies tracks on this network.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
  const logger = pino({ level: config.gateway.log_level, base: { service: 'tape-localnet' } });
  makeDirectory(config.storage.data_dir);
  const authority = loadOrCreateKeypair(gatewayKeypairPath(config.chain, config.storage));
  const network = await startLocalnet({
    ...localnetOptions(config, authority.publicKey),
    log: (event) => logger.info(event),
  });
  let closing = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (closing) return;
      closing = true;
      logger.info({ event: 'shutdown', signal });
      network.close().then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ event: 'shutdown_failed', error: (err as Error).message });
          process.exit(1);
        },
      );
    });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`localnet failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
