import { Keypair } from '@solana/web3.js';
import { KeptVersion, NetworkConfig, NO_VERSION, TapeRecord } from './account-layouts';

/**
 * A tape as the chain would hold it, for specs: 1 MiB, epochs 0 to 10, created at time 0, no
 * delegate, no version, a fresh authority and payer; `over` sets what the spec depends on.
 */
export function testTapeRecord(over: Partial<TapeRecord> = {}): TapeRecord {
  return {
    authority: Keypair.generate().publicKey,
    delegate: null,
    capacity: 1 << 20,
    activeEpoch: 0,
    expiryEpoch: 10,
    createdAt: 0,
    payer: Keypair.generate().publicKey,
    ...NO_VERSION,
    ...over,
  };
}

/**
 * A network's terms, for specs: one-hour epochs from time 0, 10 base units per MiB-epoch, fresh
 * keys for the mint, treasury, storage authority and admin; `over` sets what the spec depends on.
 */
export function testNetworkConfig(over: Partial<NetworkConfig> = {}): NetworkConfig {
  return {
    epochDurationSecs: 3600,
    genesisTime: 0,
    pricePerMibEpoch: 10n,
    mint: Keypair.generate().publicKey,
    treasury: Keypair.generate().publicKey,
    storageAuthority: Keypair.generate().publicKey,
    admin: Keypair.generate().publicKey,
    ...over,
  };
}

/**
 * The version fields of a tape whose current version is `version` with this root (and no other
 * kept version): what specs spread into a TapeRecord. `bytes` is the version's certified size.
 */
export function atVersion(
  version: number,
  root: Buffer,
  bytes = 0,
): Pick<TapeRecord, 'version' | 'latestVersion' | 'sequence' | 'history'> {
  const history: KeptVersion[] = version > 0 ? [{ version, root, bytes, publishedAt: 0 }] : [];
  return { version, latestVersion: version, sequence: version, history };
}

/**
 * The version fields of a tape at `version` keeping these versions (number and root, any
 * order), the highest of them its latest.
 */
export function keeping(
  version: number,
  kept: Array<[number, Buffer]>,
): Pick<TapeRecord, 'version' | 'latestVersion' | 'sequence' | 'history'> {
  const history = kept
    .map(([n, root]) => ({ version: n, root, bytes: 0, publishedAt: 0 }))
    .sort((a, b) => a.version - b.version);
  const latestVersion = Math.max(version, ...kept.map(([n]) => n));
  return { version, latestVersion, sequence: latestVersion, history };
}
