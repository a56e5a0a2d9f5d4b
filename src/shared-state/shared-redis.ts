import type Redis from 'ioredis';
import type { SharedStateConfig } from '../config/storage.config';

/**
 * A connection to the replicas' shared Redis (`storage.shared.redis_url`). Unlike metering's
 * (which fails open at once), commands wait through a short reconnect: state must not be
 * skipped. Each command is bounded by `command_timeout_ms`, then fails (the request answers 503).
 */
export function connectSharedRedis(config: SharedStateConfig, name: string): Redis {
  if (!config.redis_url) throw new Error('storage.shared.redis_url is not set');
  // Loaded here, not at import: the tape CLI and gateways without shared state never use it
  // (ioredis is ~45 modules, about 50 ms of every `tape` start-up).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { default: RedisClient } = require('ioredis') as typeof import('ioredis');
  const redis = new RedisClient(config.redis_url, {
    commandTimeout: config.command_timeout_ms,
    connectTimeout: Math.max(1000, config.command_timeout_ms),
    maxRetriesPerRequest: 2,
    retryStrategy: (attempt) => Math.min(100 * attempt, 1000),
    connectionName: name,
    lazyConnect: false,
  });
  return redis;
}
