import { PublicKey } from '@solana/web3.js';
import { TapeRecord, nameSize, trackSize } from '../../chain/account-layouts';
import { priorityFeesAtMost } from '../../chain/priority-fee';
import { LAMPORTS_PER_SIGNATURE } from '../../chain/program-ids';
import { PackOptions } from '../../chain/transaction-packer';
import { CliError } from '../cli-error';
import { expiredMessage } from '../output/expiry-notice';
import { formatSolApprox, sizeArgumentCovering } from '../output/units';
import { DeployTransactions } from './deploy-executor';
import { DeployPlan } from './deploy-planner';

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

/** The new tracks are written before any old one is released, so they must fit beside them. */
export function assertCapacity(tape: TapeRecord, newBytes: number): void {
  const missing = tape.used + newBytes - tape.capacity;
  if (missing > 0) {
    throw new CliError(
      `insufficient capacity: need ${missing} more bytes (fix: tape resize --add ${sizeArgumentCovering(missing)})`,
    );
  }
}

/**
 * A version's added bytes must fit beside the versions the tape keeps after the Publish: the
 * current one (which becomes the previous one) and the new one (docs/versions.md, Publish).
 */
export function assertVersionCapacity(tape: TapeRecord, addedBytes: number): void {
  const kept = tape.version > 0 ? tape.versionBytes : 0;
  assertCapacity({ ...tape, used: tape.used + kept }, addedBytes);
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

/**
 * Lamports a deploy costs: rent for the track and name accounts it creates, plus two
 * signatures' fees per transaction. Rewritten names change size only a little; their rent
 * difference is left out of the estimate. Rent is linear in the account size (Solana charges
 * per byte plus a fixed overhead), so two queries price every size.
 */
export async function deployLamports(
  plan: DeployPlan,
  transactions: number,
  rentExempt: (bytes: number) => Promise<number>,
): Promise<number> {
  const sizes: number[] = [];
  for (const track of plan.toWrite) sizes.push(trackSize(track.contentType));
  for (const file of [...plan.publish, ...(plan.entry ? [plan.entry] : [])]) {
    if (!file.current) sizes.push(nameSize(file.name, file.contentType));
  }
  let total = transactions * 2 * LAMPORTS_PER_SIGNATURE;
  if (sizes.length === 0) return total;
  const [base, large] = await Promise.all([rentExempt(0), rentExempt(RENT_PROBE_BYTES)]);
  const perByte = (large - base) / RENT_PROBE_BYTES;
  for (const size of sizes) total += Math.ceil(base + perByte * size);
  return total;
}

const RENT_PROBE_BYTES = 10_000;

/**
 * The priority fees of a deploy's transactions (`--with-compute-unit-price`), at most: names
 * are packed while the deploy runs, but what they pay depends only on their compute units.
 */
export function deployPriorityFees(txs: DeployTransactions, packing: PackOptions): number {
  const instructions = [
    ...txs.writeBatches.flat(),
    ...[...txs.namesByTrack.values()].flat(),
    ...(txs.entry ? [txs.entry] : []),
    ...txs.pruneBatches.flat(),
  ];
  return priorityFeesAtMost(instructions, txs.count, packing);
}
