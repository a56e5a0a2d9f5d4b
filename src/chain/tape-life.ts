import type { NetworkConfig, TapeRecord } from './account-layouts';

/** Whether a tape can serve: active (and for how long), expired, or no such tape. */
export type TapeLife =
  | {
      kind: 'active';
      /** Milliseconds until the reservation ends (chain clock). */ expiresInMs: number;
    }
  | { kind: 'expired' }
  | { kind: 'unknown' };

/**
 * The program's rule (docs/program.md): a tape is active while current_epoch < expiry_epoch,
 * that is until its expiry epoch starts. `chainNow` is the chain clock in unix seconds.
 */
export function tapeLife(
  record: TapeRecord | null,
  clock: Pick<NetworkConfig, 'genesisTime' | 'epochDurationSecs'>,
  chainNow: number,
): TapeLife {
  if (!record) return { kind: 'unknown' };
  const endsAt = clock.genesisTime + record.expiryEpoch * clock.epochDurationSecs;
  return endsAt > chainNow
    ? { kind: 'active', expiresInMs: (endsAt - chainNow) * 1000 }
    : { kind: 'expired' };
}
