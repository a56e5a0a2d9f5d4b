import Redis from 'ioredis';
import type { SharedStateConfig } from '../config/storage.config';

/**
 * A connection to the replicas' shared Redis (`storage.shared.redis_url`). Unlike metering's
 * (which fails open at once), commands wait through a short reconnect: state must not be
 * skipped. Each command is bounded by `command_timeout_ms`, then fails (the request answers 503).
 */
export function connectSharedRedis(config: SharedStateConfig, name: string): Redis {
  if (!config.redis_url) throw new Error('storage.shared.redis_url is not set');
  const redis = new Redis(config.redis_url, {
    commandTimeout: config.command_timeout_ms,
    connectTimeout: Math.max(1000, config.command_timeout_ms),
    maxRetriesPerRequest: 2,
    retryStrategy: (attempt) => Math.min(100 * attempt, 1000),
    connectionName: name,
    lazyConnect: false,
  });
  return redis;
}
