import { CliResult, cliEnv, runCli } from '../clients/cli';
import { GatewayProcess, startGateway } from './gateway';

/** What the site tests and benchmarks configure: the config's sections, as plain values. */
export interface SiteGatewayOptions {
  /** `gateway.site` of the config. */
  site?: Record<string, unknown>;
  /** `gateway.metering` of the config. */
  metering?: Record<string, unknown>;
  /** `localnet` of the config (epoch_duration_secs, slot_ms, ...); slot_ms 50 unless given. */
  localnet?: Record<string, unknown>;
  /** Default: a fresh temporary directory, removed on stop. */
  dataDir?: string;
  /** Use this chain instead of embedding the local network (a reader gateway). */
  rpcUrl?: string;
  logLevel?: string;
  /** A port chosen beforehand (when the config must name it, e.g. in `subdomain_suffix`). */
  port?: number;
  /** Node flags and the built gateway to run, as startGateway takes them. */
  nodeFlags?: readonly string[];
  entry?: string;
  /** Extra environment variables of the gateway process. */
  env?: Record<string, string>;
}

export interface SiteGateway extends GatewayProcess {
  /** Runs `tape <args>` with its own config directory against this gateway. */
  tape(args: string[], configDir: string): Promise<CliResult>;
}

/**
 * The gateway (startGateway: the built `dist/main.js`) configured from the site tests' plain
 * options, with a `tape` runner whose site domain is this gateway's `localhost:<port>`.
 */
export async function startSiteGateway(options: SiteGatewayOptions = {}): Promise<SiteGateway> {
  const gateway: Record<string, unknown> = {};
  if (options.site) gateway.site = options.site;
  if (options.metering) gateway.metering = options.metering;
  const gw = await startGateway({
    port: options.port,
    dataDir: options.dataDir,
    rpcUrl: options.rpcUrl,
    logLevel: options.logLevel,
    nodeFlags: options.nodeFlags,
    entry: options.entry,
    env: options.env,
    config: { gateway, localnet: { slot_ms: 50, ...options.localnet } },
  });
  return {
    ...gw,
    tape: (args, configDir) =>
      runCli(
        args,
        cliEnv({
          configDir,
          rpcUrl: gw.rpcUrl,
          gatewayUrl: gw.url,
          siteDomain: `localhost:${gw.port}`,
        }),
        { timeoutMs: 120_000 },
      ),
  };
}
