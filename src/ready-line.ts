import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ChainServices } from './chain/chain.module';
import { GatewayIdentity } from './chain/gateway-identity';
import { KeyBalance } from './chain/key-balance/key-balance';
import { solText } from './chain/key-balance/key-balance-limits';
import { cliVersion } from './cli/cli-version';
import { AppConfig } from './config/app-config';
import { S3Server } from './s3/s3-server';

/** How long the ready line waits for the key's balance before saying it is unknown. */
const READY_BALANCE_WAIT_MS = 2000;

/** What the ready line reports (src/main.ts gathers it once every listener is bound). */
export interface ReadyInfo {
  version: string;
  /** The main listener: sites by path, objects, uploads, /healthz. */
  url: string;
  /** `<label>.<suffix>` site hosts (gateway.site.subdomain_suffix). */
  siteSuffix: string;
  s3Url: string;
  /** Undefined when the admin listener is off (port 0). */
  adminUrl?: string;
  /** The chain's JSON-RPC endpoint. */
  rpcUrl: string;
  /** Whether that endpoint is the local network embedded in this process. */
  embedded: boolean;
  role: 'writer' | 'reader';
  programId: string;
  gatewayKey: string;
  /** The key's balance; undefined for a reader or when it could not be read in time. */
  balanceLamports?: number;
}

/**
 * The gateway's first line, for a person: where it listens, its role, its program and its
 * key's balance. `tape-gateway 0.1.0 ready: http://127.0.0.1:8080 (sites <label>.localhost:8080,
 * S3 http://127.0.0.1:8081, admin http://127.0.0.1:9464, local network RPC
 * http://127.0.0.1:8899); writer, key 3ACW…, 100 SOL; program Tape111…`.
 */
export function readyLine(info: ReadyInfo): string {
  const listeners = [
    `sites <label>.${info.siteSuffix}`,
    `S3 ${info.s3Url}`,
    ...(info.adminUrl ? [`admin ${info.adminUrl}`] : []),
    `${info.embedded ? 'local network RPC' : 'chain RPC'} ${rpcShown(info)}`,
  ];
  const who =
    info.role === 'writer'
      ? `writer, key ${info.gatewayKey}, ${info.balanceLamports === undefined ? 'balance unknown' : `${solText(info.balanceLamports)} SOL`}`
      : 'reader (no key: uploads go to a writer)';
  return (
    `tape-gateway ${info.version} ready: ${info.url} (${listeners.join(', ')}); ` +
    `${who}; program ${info.programId}`
  );
}

/** The same facts as fields of the JSON record. */
export function readyFields(info: ReadyInfo): Record<string, unknown> {
  return {
    version: info.version,
    url: info.url,
    site_suffix: info.siteSuffix,
    s3_url: info.s3Url,
    admin_url: info.adminUrl ?? null,
    rpc_url: rpcShown(info),
    embedded_network: info.embedded,
    role: info.role,
    program_id: info.programId,
    // Tape owners delegate to this key for S3 sync (`tape delegate <key>`).
    gateway_key: info.gatewayKey,
    balance_lamports: info.balanceLamports ?? null,
  };
}

/**
 * An external RPC's origin only: providers put their API key in the path or the query
 * (`https://…/?api-key=…`), and a log line is no place for it.
 */
function rpcShown(info: ReadyInfo): string {
  if (info.embedded) return info.rpcUrl;
  try {
    return new URL(info.rpcUrl).origin;
  } catch {
    return 'an RPC endpoint';
  }
}

/** What the ready line says, read from the started application (every listener bound). */
export async function collectReadyInfo(
  app: NestFastifyApplication,
  config: AppConfig,
  listeners: { embedded: boolean; adminUrl?: string },
): Promise<ReadyInfo> {
  const identity = app.get(GatewayIdentity);
  return {
    version: cliVersion(__dirname),
    url: `http://${config.gateway.host}:${config.gateway.port}`,
    siteSuffix: config.gateway.site.subdomain_suffix,
    s3Url: app.get(S3Server).url,
    adminUrl: listeners.adminUrl,
    rpcUrl: config.chain.rpc_url ?? '',
    embedded: listeners.embedded,
    role: identity.role,
    programId: app.get(ChainServices).ix.programId.toBase58(),
    gatewayKey: identity.publicKey.toBase58(),
    balanceLamports: identity.isWriter ? await balanceWithin(app.get(KeyBalance)) : undefined,
  };
}

/** The key's balance if the chain answers within READY_BALANCE_WAIT_MS (never blocks start). */
async function balanceWithin(balance: KeyBalance): Promise<number | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), READY_BALANCE_WAIT_MS);
  });
  try {
    return await Promise.race([balance.current(), late]);
  } finally {
    clearTimeout(timer);
  }
}
