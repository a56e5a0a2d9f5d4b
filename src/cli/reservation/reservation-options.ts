import { NetworkConfig } from '../../chain/account-layouts';
import { CliError } from '../cli-error';
import { epochsAdding, epochsCovering } from '../output/tape-lines';

/** `--duration <time>` or `--epochs <n>`: exactly one of them. */
export interface ReservationOptions {
  duration?: number;
  epochs?: number;
}

export function assertOneReservation(options: ReservationOptions, command: string): void {
  if (options.duration !== undefined && options.epochs !== undefined) {
    throw new CliError(`${command}: give --duration or --epochs, not both`);
  }
  if (options.duration === undefined && options.epochs === undefined) {
    throw new CliError(`${command}: --duration <time> (e.g. 30d) or --epochs <n> is required`);
  }
}

/** Epochs for a new reservation: `--epochs`, or enough to cover `--duration` from now. */
export function epochsForNewTape(
  options: ReservationOptions,
  nowUnix: number,
  currentEpoch: number,
  config: NetworkConfig,
): number {
  if (options.epochs !== undefined) return options.epochs;
  return epochsCovering(options.duration!, nowUnix, currentEpoch, config);
}

/** Epochs to add: `--epochs`, or enough to lengthen the reservation by `--duration`. */
export function epochsToAdd(options: ReservationOptions, config: NetworkConfig): number {
  if (options.epochs !== undefined) return options.epochs;
  return epochsAdding(options.duration!, config);
}
