import { NetworkConfig } from '../../chain/account-layouts';
import { formatDuration, formatRelative, formatUtc } from './units';

/** Unix time at which an epoch starts (the program's clock: genesis + epoch × duration). */
export function epochStart(
  epoch: number,
  config: Pick<NetworkConfig, 'genesisTime' | 'epochDurationSecs'>,
): number {
  return config.genesisTime + epoch * config.epochDurationSecs;
}

/**
 * Epochs to buy so the reservation lasts at least `durationSecs` from now. The current epoch is
 * already under way, so it counts only for what is left of it.
 */
export function epochsCovering(
  durationSecs: number,
  nowUnix: number,
  currentEpoch: number,
  config: NetworkConfig,
): number {
  const elapsed = Math.max(0, nowUnix - epochStart(currentEpoch, config));
  return Math.max(1, Math.ceil((durationSecs + elapsed) / config.epochDurationSecs));
}

/** Epochs to add to an existing reservation to lengthen it by `durationSecs`. */
export function epochsAdding(durationSecs: number, config: NetworkConfig): number {
  return Math.max(1, Math.ceil(durationSecs / config.epochDurationSecs));
}

export function epochsValue(active: number, expiry: number): string {
  return `active=${active} expiry=${expiry}`;
}

export function epochDurationValue(config: NetworkConfig): string {
  return formatDuration(config.epochDurationSecs);
}

/** `~2026-11-23 04:00 UTC (in about 1 day)`: an estimate from the current epoch duration. */
export function expiresValue(expiryEpoch: number, config: NetworkConfig, nowUnix: number): string {
  const at = epochStart(expiryEpoch, config);
  return `~${formatUtc(at)} (${formatRelative(at, nowUnix)})`;
}
