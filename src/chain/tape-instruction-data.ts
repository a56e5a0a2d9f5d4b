import { PublicKey } from '@solana/web3.js';
import { ByteReader, ByteWriter, LayoutError } from './byte-codec';

/** Instruction tags: the first byte of instruction data (docs/program.md, "Instructions"). */
export enum Tag {
  InitConfig = 0,
  CreateTape = 1,
  ExtendTape = 2,
  ResizeTape = 3,
  SetDelegate = 4,
  // 5-9 were the per-file WriteTrack, SetName, CertifyTrack, RemoveName and ReleaseTrack
  // (programs before 1.2.0): now unknown tags, refused as invalid instruction data, never reused.
  Publish = 10,
}

export type TapeInstructionData =
  | {
      tag: Tag.InitConfig;
      epochDurationSecs: number;
      genesisTime: number;
      pricePerMibEpoch: bigint;
      storageAuthority: PublicKey;
    }
  | { tag: Tag.CreateTape; capacity: number; epochs: number }
  | { tag: Tag.ExtendTape; epochs: number }
  | { tag: Tag.ResizeTape; addBytes: number }
  | { tag: Tag.SetDelegate; delegate: PublicKey | null }
  | {
      tag: Tag.Publish;
      /** The version this one replaces (compare-and-swap); 0 for a tape's first. */
      expectedVersion: number;
      /** Commitment of the new version's root manifest node (never all zeros). */
      root: Buffer;
      /** Unique bytes the new version references. */
      versionBytes: number;
      /** Of those, the bytes the version it replaces does not reference. */
      addedBytes: number;
    };

export function encodeInstructionData(d: TapeInstructionData): Buffer {
  const w = new ByteWriter().u8(d.tag);
  switch (d.tag) {
    case Tag.InitConfig:
      w.u64(d.epochDurationSecs).i64(d.genesisTime).u64(d.pricePerMibEpoch);
      w.pubkey(d.storageAuthority);
      break;
    case Tag.CreateTape:
      w.u64(d.capacity).u64(d.epochs);
      break;
    case Tag.ExtendTape:
      w.u64(d.epochs);
      break;
    case Tag.ResizeTape:
      w.u64(d.addBytes);
      break;
    case Tag.SetDelegate:
      w.u8(d.delegate ? 1 : 0).pubkey(d.delegate ?? PublicKey.default);
      break;
    case Tag.Publish:
      w.u64(d.expectedVersion).bytes(d.root).u64(d.versionBytes).u64(d.addedBytes);
      break;
  }
  return w.done();
}

export function decodeInstructionData(data: Buffer): TapeInstructionData {
  const r = new ByteReader(data);
  const tag = r.u8() as Tag;
  let out: TapeInstructionData;
  switch (tag) {
    case Tag.InitConfig:
      out = {
        tag,
        epochDurationSecs: r.u64n(),
        genesisTime: r.i64n(),
        pricePerMibEpoch: r.u64(),
        storageAuthority: r.pubkey(),
      };
      break;
    case Tag.CreateTape:
      out = { tag, capacity: r.u64n(), epochs: r.u64n() };
      break;
    case Tag.ExtendTape:
      out = { tag, epochs: r.u64n() };
      break;
    case Tag.ResizeTape:
      out = { tag, addBytes: r.u64n() };
      break;
    case Tag.SetDelegate: {
      const has = r.u8();
      const key = r.pubkey();
      out = { tag, delegate: has ? key : null };
      break;
    }
    case Tag.Publish:
      out = {
        tag,
        expectedVersion: r.u64n(),
        root: r.bytes(32),
        versionBytes: r.u64n(),
        addedBytes: r.u64n(),
      };
      break;
    default:
      throw new LayoutError(`unknown instruction tag ${String(tag)}`);
  }
  r.end();
  return out;
}
