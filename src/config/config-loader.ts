import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { AppConfig } from './app-config';
import { ChainConfig, normalizeRpcUrls } from './chain.config';
import { ConfigError } from './config-error';
import { gatewayRole } from './gateway-role';
import { checkSiteConfig, readResolvConf, siteResolvers } from './site-checks';
import { checkTrackStoreConfig, checkTrackStoreRole } from './storage-checks';

export { ConfigError };

type Env = Record<string, string | undefined>;
type Plain = Record<string, unknown>;

/** Well-known variables from ARCHITECTURE.md and the key each one sets. */
const NAMED_VARIABLES: Record<string, string> = {
  HOST: 'gateway.host',
  PORT: 'gateway.port',
  TAPE_S3_PORT: 'gateway.s3.port',
  TAPE_ADMIN_PORT: 'gateway.admin.port',
  TAPE_LOCALNET_PORT: 'localnet.port',
  TAPE_DATA_DIR: 'storage.data_dir',
  TAPE_RPC_URL: 'chain.rpc_url',
  TAPE_PROGRAM_ID: 'chain.program_id',
  TAPE_REDIS_URL: 'gateway.metering.redis_url',
  TAPE_LOG_LEVEL: 'gateway.log_level',
  TAPE_LOG_FORMAT: 'gateway.log_format',
};

/** Variables taken as written: a base58 id of digits only would read as a YAML number. */
const STRING_VARIABLES = new Set(['TAPE_PROGRAM_ID']);

/** Any key can be set as `TAPE__GATEWAY__SITE__SPA_FALLBACK=true` (value parsed as YAML). */
const GENERIC_PREFIX = 'TAPE__';

export function loadConfig(env: Env = process.env): AppConfig {
  const plain: Plain = {};
  const file = env.TAPE_GATEWAY_CONFIG;
  if (file) mergeInto(plain, readYamlFile(file));
  for (const [name, key] of Object.entries(NAMED_VARIABLES)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    setPath(plain, key, STRING_VARIABLES.has(name) ? value : parseScalar(value));
  }
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(GENERIC_PREFIX) || value === undefined) continue;
    const key = name.slice(GENERIC_PREFIX.length).toLowerCase().split('__').join('.');
    setPath(plain, key, parseScalar(value));
  }
  const config = validateConfig(plain);
  checkAgainstHost(config);
  return config;
}

/**
 * Validates a plain configuration: every key's type and range (the classes' decorators), then
 * the checks that span keys or parse names (site-checks.ts, storage-checks.ts). The first
 * failure is one ConfigError line naming the key.
 */
export function validateConfig(plain: Plain): AppConfig {
  if (isPlain(plain.chain)) normalizeRpcUrls(plain.chain);
  const config = plainToInstance(AppConfig, plain, { exposeDefaultValues: true });
  const errors = validateSync(config, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) throw new ConfigError(`config error: ${describe(errors[0])}`);
  checkSiteConfig(config.gateway.site);
  checkTrackStoreConfig(config.storage);
  return config;
}

/**
 * The checks that read this machine, for a configuration loaded to run here: the resolvers of
 * /etc/resolv.conf when TXT bindings use them, and the role the gateway's key file gives it.
 */
function checkAgainstHost(config: AppConfig): void {
  const site = config.gateway.site;
  if (site.txt_domains && site.dns_resolvers.length === 0) siteResolvers(site, readResolvConf());
  if (config.storage.tracks.peers.length > 0) {
    checkTrackStoreRole(config.storage, gatewayRole(config.chain, config.storage));
  }
}

/**
 * `chain.*` alone, validated as the gateway validates it: the CLI's chain settings come from a
 * command's options rather than the gateway's file and environment.
 */
export function validateChainConfig(chain: Plain): ChainConfig {
  return validateConfig({ chain }).chain;
}

function readYamlFile(file: string): Plain {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`config error: cannot read ${file}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`config error: ${file} is not valid YAML: ${(err as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`config error: ${file} must hold a mapping at the top level`);
  }
  return parsed as Plain;
}

function parseScalar(value: string): unknown {
  try {
    return parseYaml(value) as unknown;
  } catch {
    return value;
  }
}

function setPath(target: Plain, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[part] = {};
    node = node[part] as Plain;
  }
  node[parts[parts.length - 1]] = value;
}

function mergeInto(target: Plain, source: Plain): void {
  for (const [k, v] of Object.entries(source)) {
    const existing = target[k];
    if (isPlain(v) && isPlain(existing)) mergeInto(existing, v);
    else target[k] = v;
  }
}

function isPlain(v: unknown): v is Plain {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(error: ValidationError, prefix = ''): string {
  // Keys are snake_case in YAML and env; a camelCase property is exposed under that name.
  const name = error.property.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const key = prefix ? `${prefix}.${name}` : name;
  if (error.constraints) {
    const first = Object.values(error.constraints)[0];
    // class-validator phrases constraints as "<property> must ..."; name the full key instead.
    const reason = first.startsWith(`${error.property} `)
      ? first.slice(error.property.length + 1)
      : first;
    return `${key}: ${reason.replace(/^property \S+ /, '')}`;
  }
  const child = error.children?.[0];
  return child ? describe(child, key) : `${key}: invalid`;
}
