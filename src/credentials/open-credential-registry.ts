import type Redis from 'ioredis';
import { join, resolve } from 'node:path';
import type { S3Config } from '../config/s3.config';
import type { StorageConfig } from '../config/storage.config';
import { connectSharedRedis } from '../shared-state/shared-redis';
import { CredentialCipher } from './credential-cipher';
import { CredentialRegistry } from './credential-registry';
import { RedisCredentialRegistry } from './redis-credential-registry';
import { OPERATOR_KEY_FILE, SqliteCredentialRegistry } from './sqlite-credential-registry';

/** The operator key file: `gateway.s3.credential_key_file`, else `<data_dir>/s3-credentials.key`. */
export function operatorKeyPath(storage: StorageConfig, s3: S3Config): string {
  return s3.credential_key_file ?? join(resolve(storage.data_dir), OPERATOR_KEY_FILE);
}

/**
 * The credentials this configuration names: the shared Redis when `storage.shared.redis_url` is
 * set (over `redis` when given, else a connection of its own that close() ends), else SQLite
 * in the data directory.
 */
export function openCredentialRegistry(
  storage: StorageConfig,
  s3: S3Config,
  redis?: Redis,
): CredentialRegistry {
  const keyFile = operatorKeyPath(storage, s3);
  if (!storage.shared.redis_url) {
    return SqliteCredentialRegistry.open(storage.data_dir, keyFile);
  }
  const cipher = CredentialCipher.fromKeyFile(keyFile);
  const connection = redis ?? connectSharedRedis(storage.shared, 'tape-cli-credentials');
  return new RedisCredentialRegistry(
    connection,
    cipher,
    storage.shared.key_prefix,
    redis === undefined,
  );
}
