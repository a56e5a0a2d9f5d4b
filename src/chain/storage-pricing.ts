import { MIB } from './program-ids';

/** Capacity is paid per started MiB. */
export function billableMib(capacityBytes: number): bigint {
  return BigInt(Math.ceil(capacityBytes / MIB));
}

/** Storage tokens for `capacity` bytes over `epochs` epochs: exact, as the program charges it. */
export function storageCost(
  capacityBytes: number,
  epochs: number,
  pricePerMibEpoch: bigint,
): bigint {
  return billableMib(capacityBytes) * BigInt(epochs) * pricePerMibEpoch;
}

/** Growing a tape pays the added MiB for the epochs it has left. */
export function resizeCost(
  capacityBytes: number,
  addBytes: number,
  remainingEpochs: number,
  pricePerMibEpoch: bigint,
): bigint {
  const added = billableMib(capacityBytes + addBytes) - billableMib(capacityBytes);
  return added * BigInt(remainingEpochs) * pricePerMibEpoch;
}

export function epochAt(unixSecs: number, genesisTime: number, epochDurationSecs: number): number {
  return Math.max(0, Math.floor((unixSecs - genesisTime) / epochDurationSecs));
}
