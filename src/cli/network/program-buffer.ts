import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { createHash } from 'node:crypto';
import { ResendingSender, SenderRpc, TransactionJob } from '../../chain/resending-sender';
import { addressWithSeed } from '../../chain/seeded-address';
import { PACKET_DATA_SIZE } from '../../chain/transaction-budget';
import { PackOptions, transactionSize, withComputeBudget } from '../../chain/transaction-packer';
import {
  BUFFER_METADATA_SIZE,
  createBufferInstructions,
  decodeLoaderState,
  UPGRADEABLE_LOADER_ID,
  writeBuffer,
} from '../../chain/upgradeable-loader';
import { CliError } from '../cli-error';
import { ProgramWriteProgress } from './write-progress';

/** The RPC calls a buffer needs (web3.js's Connection has them all). */
export type BufferRpc = SenderRpc &
  Pick<Connection, 'getMultipleAccountsInfo' | 'getMinimumBalanceForRentExemption'>;

/** What a buffer is for: this ELF, for this program, written by this authority. */
export interface BufferTarget {
  rpc: BufferRpc;
  programId: PublicKey;
  elf: Buffer;
  /** Pays; the base of the buffer's seeded address. */
  payer: Keypair;
  /** The buffer's authority: it signs every write, and must be the program's authority. */
  authority: Keypair;
  packing: PackOptions;
  progress: ProgramWriteProgress;
}

export interface BufferFill {
  address: PublicKey;
  /** Chunks of the ELF; those this run wrote; those an earlier run had written. */
  chunks: number;
  written: number;
  resumed: number;
}

/**
 * Creates the buffer for `target` (or finds the one an interrupted run left), writes the chunks
 * whose bytes it lacks, concurrently, and checks it holds the ELF. The address is seeded from
 * the payer with `bufferSeed`, so the same deploy always finds the same buffer.
 */
export async function fillProgramBuffer(
  target: BufferTarget,
  sender: ResendingSender,
): Promise<BufferFill> {
  const { rpc, elf, payer, authority, progress } = target;
  const seed = bufferSeed(target.programId, authority.publicKey, elf);
  const address = addressWithSeed(payer.publicKey, seed, UPGRADEABLE_LOADER_ID);
  let contents = await readBuffer(target, address);
  if (contents) {
    progress.step(`found buffer ${address.toBase58()} of an earlier run`);
  } else {
    const space = BUFFER_METADATA_SIZE + elf.length;
    progress.step(`creating buffer ${address.toBase58()} (${space} bytes)`);
    const lamports = await rpc.getMinimumBalanceForRentExemption(space);
    await sender.sendAll([
      {
        instructions: createBufferInstructions({
          payer: payer.publicKey,
          buffer: address,
          seed,
          authority: authority.publicKey,
          elfLength: elf.length,
          lamports,
        }),
        signers: [payer],
      },
    ]);
    contents = Buffer.alloc(elf.length);
  }
  const size = writeChunkSize(target);
  const offsets: number[] = [];
  for (let offset = 0; offset < elf.length; offset += size) offsets.push(offset);
  const fill: BufferFill = { address, chunks: offsets.length, written: 0, resumed: 0 };
  // A second pass only if the buffer, read back, still lacks something.
  for (let pass = 0; ; pass++) {
    const have = contents;
    const missing = offsets.filter((o) => !sameChunk(have, elf, o, size));
    if (missing.length === 0) return fill;
    if (pass === 2) {
      throw new CliError(`buffer ${address.toBase58()} does not hold the program after writing it`);
    }
    if (pass === 0) fill.resumed = offsets.length - missing.length;
    progress.startWrites(offsets.length, offsets.length - missing.length);
    const jobs: TransactionJob[] = missing.map((offset) => ({
      instructions: [
        writeBuffer({
          buffer: address,
          authority: authority.publicKey,
          offset,
          bytes: elf.subarray(offset, offset + size),
        }),
      ],
      signers: uniqueSigners(payer, authority),
    }));
    try {
      await sender.sendAll(jobs, () => {
        fill.written++;
        progress.chunkWritten();
      });
    } finally {
      progress.endWrites();
    }
    contents = (await readBuffer(target, address)) ?? Buffer.alloc(elf.length);
  }
}

/** The ELF bytes our buffer holds, or null when it does not exist yet. */
async function readBuffer(target: BufferTarget, address: PublicKey): Promise<Buffer | null> {
  const [info] = await target.rpc.getMultipleAccountsInfo([address]);
  if (!info) return null;
  const state = info.owner.equals(UPGRADEABLE_LOADER_ID) ? decodeLoaderState(info.data) : null;
  if (
    state?.kind !== 'buffer' ||
    !state.authority?.equals(target.authority.publicKey) ||
    info.data.length !== BUFFER_METADATA_SIZE + target.elf.length
  ) {
    throw new CliError(
      `account ${address.toBase58()} (this deploy's buffer address) holds something else; close it or deploy with another payer`,
    );
  }
  return info.data.subarray(BUFFER_METADATA_SIZE);
}

/** Bytes of ELF per Write: what is left of 1232 once the rest of the transaction is counted. */
export function writeChunkSize(
  target: Pick<BufferTarget, 'payer' | 'authority' | 'packing'>,
): number {
  const empty = writeBuffer({
    buffer: PublicKey.default,
    authority: target.authority.publicKey,
    offset: 0,
    bytes: new Uint8Array(0),
  });
  const { transactionInstructions } = withComputeBudget([empty], target.packing);
  const overhead = transactionSize(transactionInstructions, target.payer.publicKey);
  // The data length prefix grows from one byte to two past 127 bytes.
  return PACKET_DATA_SIZE - overhead - 1;
}

/**
 * The buffer's seed: one per program, authority and ELF, so an interrupted deploy of the same
 * bytes finds its buffer, and a different ELF never writes into it. 32 hex characters (the
 * seed limit) of SHA-256.
 */
export function bufferSeed(programId: PublicKey, authority: PublicKey, elf: Buffer): string {
  return createHash('sha256')
    .update(programId.toBuffer())
    .update(authority.toBuffer())
    .update(elf)
    .digest('hex')
    .slice(0, 32);
}

function sameChunk(have: Buffer, want: Buffer, offset: number, size: number): boolean {
  return have.subarray(offset, offset + size).equals(want.subarray(offset, offset + size));
}

/** Each key once, the payer first. */
export function uniqueSigners(...keys: Keypair[]): Keypair[] {
  const seen = new Set<string>();
  return keys.filter((k) => {
    const id = k.publicKey.toBase58();
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
