import { PublicKey } from '@solana/web3.js';
import { NetworkConfig, TapeRecord } from '../../chain/account-layouts';
import { epochStart } from './tape-lines';
import { formatRelative, formatUtc } from './units';

/** Warn at most this long before a tape expires... */
export const EXPIRY_WARNING_MAX_SECS = 86_400;
/** ...or within this share of its reserved duration, when that is shorter. */
export const EXPIRY_WARNING_FRACTION = 0.1;

type Clock = Pick<NetworkConfig, 'genesisTime' | 'epochDurationSecs'>;

/**
 * How long before its expiry a tape is "expiring soon": a day, or a tenth of the time it was
 * reserved for, whichever is shorter. A 30-day tape warns in its last day; a 2-hour tape in its
 * last 12 minutes (a day would have it warn from the moment it was created).
 */
export function expiryWarningSecs(record: TapeRecord, clock: Clock): number {
  const reservedSecs = (record.expiryEpoch - record.activeEpoch) * clock.epochDurationSecs;
  return Math.min(EXPIRY_WARNING_MAX_SECS, EXPIRY_WARNING_FRACTION * reservedSecs);
}

/** The warning for a tape that is active but expiring soon; undefined otherwise. */
export function expiryWarning(
  address: PublicKey,
  record: TapeRecord,
  clock: Clock,
  nowUnix: number,
): string | undefined {
  const endsAt = epochStart(record.expiryEpoch, clock);
  const left = endsAt - nowUnix;
  if (left <= 0 || left > expiryWarningSecs(record, clock)) return undefined;
  return (
    `warning: tape ${address.toBase58()} expires ${formatRelative(endsAt, nowUnix)} ` +
    `(~${formatUtc(endsAt)}); extend it before then (tape extend --duration <time>): ` +
    'an expired tape cannot be extended and its site stops (410 Gone)'
  );
}

/**
 * What an expired tape still allows (docs/program.md): the program refuses ExtendTape and
 * ResizeTape on it, and gateways certify no Publish for it (410), so neither `tape deploy` nor
 * `tape object rm` can change its site (a site is a version: docs/versions.md).
 */
export const EXPIRED_ALLOWS =
  'it cannot be extended, resized or written to, and its site answers 410 Gone; ' +
  'no new version can be published (tape deploy and tape object rm are refused). ' +
  'To publish the site again, reserve a new tape and deploy there: ' +
  'tape create --capacity <size> --duration <time>, then tape deploy';

/** The line for an expired tape, with when it expired when that is known. */
export function expiredMessage(
  address?: PublicKey,
  record?: TapeRecord,
  clock?: Clock,
  nowUnix?: number,
): string {
  const which = address ? `tape ${address.toBase58()} expired` : 'tape expired';
  if (!record || !clock || nowUnix === undefined) return `${which}: ${EXPIRED_ALLOWS}`;
  const endedAt = epochStart(record.expiryEpoch, clock);
  return `${which} ${formatRelative(endedAt, nowUnix)} (epoch ${record.expiryEpoch}, ~${formatUtc(endedAt)}): ${EXPIRED_ALLOWS}`;
}
