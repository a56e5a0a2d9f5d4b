import { LAMPORTS_PER_SOL } from '@solana/web3.js';
import { AppConfig } from './config/app-config';
import { ChainServices } from './chain/chain.module';
import { GatewayIdentity } from './chain/gateway-identity';
import { startLocalnet } from './localnet/localnet';
import { localnetOptions } from './localnet/localnet-options';
import { JsonLogger } from './logging/json-logger';
import { registerLocalnetMetrics } from './localnet/localnet-metrics';
import type { GatewayMetrics } from './observability/gateway-metrics';
import { makeDirectory } from './config/directories';

export interface EmbeddedNetwork {
  /**
   * The gateway app's metrics show the network: its slot and transactions, and its JSON-RPC
   * answers as listener and kind `rpc`. Called once the app exists, before it starts.
   */
  reportTo(metrics: GatewayMetrics): void;
  close(): Promise<void>;
}

/** The gateway's key pays certification fees; on the local network the faucet keeps it funded. */
const GATEWAY_MIN_LAMPORTS = 10 * LAMPORTS_PER_SOL;

/**
 * With no `chain.rpc_url`, the gateway embeds the local network in its own process: it starts
 * the JSON-RPC node (the gateway's key is its storage authority), points the chain config at
 * it and funds the gateway's key from the faucet.
 */
export async function embedLocalNetwork(
  config: AppConfig,
  logger: JsonLogger,
): Promise<EmbeddedNetwork | null> {
  if (config.chain.rpc_url) return null;
  makeDirectory(config.storage.data_dir);
  const identity = GatewayIdentity.load(config.chain, config.storage);
  const network = await startLocalnet({
    ...localnetOptions(config, identity.publicKey),
    // Internal errors of the RPC (a handler that threw) are the gateway's to see, and so is a
    // WebSocket client dropped for not reading (a hostile or broken client of the RPC port);
    // the rest is the local network's routine (listening, dropped transactions): debug.
    log: (event) => {
      if (event.event === 'rpc_internal_error') logger.error(event, undefined, 'localnet');
      else if (event.event === 'pubsub_client_dropped') logger.warn(event, 'localnet');
      else logger.debug(event, 'localnet');
    },
  });
  config.chain.rpc_url = network.rpcUrl;
  config.chain.ws_url = network.wsUrl;
  logger.log({ event: 'localnet', rpc: network.rpcUrl, ws: network.wsUrl }, 'localnet');

  const chain = new ChainServices(config.chain);
  try {
    const { lamports } = await chain.reader.getBalances(identity.publicKey);
    if (lamports < GATEWAY_MIN_LAMPORTS) {
      await chain.faucet.requestAirdrop(identity.publicKey, 100 * LAMPORTS_PER_SOL);
    }
  } finally {
    chain.close();
  }
  return {
    reportTo: (metrics) => {
      registerLocalnetMetrics(metrics.registry, network);
      network.observeRpcAnswers((status, seconds, bytes) =>
        metrics.observe('rpc', 'rpc', status, seconds, bytes),
      );
    },
    close: () => network.close(),
  };
}
