import { PublicKey } from '@solana/web3.js';
import { TapeRecord } from '../../chain/account-layouts';
import { currentVersion } from '../../chain/tape-history';
import { CliError } from '../cli-error';
import { expiredMessage } from '../output/expiry-notice';
import { formatSolApprox, sizeArgumentCovering } from '../output/units';

/**
 * Checks made before a deploy signs anything: each failure is one line with its fix. An expired
 * tape cannot be extended, so the line says what is still possible (docs/cli.md, "Expiry").
 */
export function assertTapeActive(
  tape: TapeRecord,
  currentEpoch: number,
  when?: { address: PublicKey; clock: Parameters<typeof expiredMessage>[2]; nowUnix: number },
): void {
  if (currentEpoch >= tape.expiryEpoch) {
    throw new CliError(expiredMessage(when?.address, tape, when?.clock, when?.nowUnix));
  }
}

/** `newBytes` must fit beside `takenBytes` in the tape's capacity. */
export function assertCapacity(tape: TapeRecord, newBytes: number, takenBytes = 0): void {
  const missing = takenBytes + newBytes - tape.capacity;
  if (missing > 0) {
    throw new CliError(
      `insufficient capacity: need ${missing} more bytes (fix: tape resize --add ${sizeArgumentCovering(missing)})`,
    );
  }
}

/**
 * A version's added bytes must at least fit beside the current version, which stays kept after
 * the Publish (the certifier counts the whole kept set exactly: docs/versions.md, Publish).
 */
export function assertVersionCapacity(tape: TapeRecord, addedBytes: number): void {
  const kept = currentVersion(tape)?.bytes ?? 0;
  assertCapacity(tape, addedBytes, kept);
}

export function assertCanPay(
  wallet: PublicKey,
  balance: number,
  needed: number,
  what: string,
): void {
  if (balance < needed) {
    throw new CliError(
      `insufficient funds: ${what} needs about ${formatSolApprox(needed)} SOL, wallet ${wallet.toBase58()} has ${formatSolApprox(balance)} SOL (fix: fund the wallet; on a local network: tape airdrop)`,
    );
  }
}
