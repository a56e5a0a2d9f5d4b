import { PublicKey } from '@solana/web3.js';
import { readAliasName, writeAliasName } from './account-layouts';
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
  SetCurrent = 11,
  RemoveAlias = 12,
  SetKeep = 13,
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
      /** The tape's `sequence` this change was computed against (compare-and-swap). */
      expectedSequence: number;
      /** Commitment of the new version's root manifest node (never all zeros). */
      root: Buffer;
      /** Unique bytes the new version references. */
      versionBytes: number;
      /** Unique bytes of every version kept after this Publish, as the certifier counted them. */
      keptBytes: number;
      /** '' publishes the live version; a name publishes under that alias, live unchanged. */
      alias: string;
    }
  | { tag: Tag.SetCurrent; expectedSequence: number; version: number }
  | { tag: Tag.RemoveAlias; expectedSequence: number; name: string }
  | { tag: Tag.SetKeep; expectedSequence: number; keep: number };

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
      w.u64(d.expectedSequence).bytes(d.root).u64(d.versionBytes).u64(d.keptBytes);
      writeAliasName(w, d.alias);
      break;
    case Tag.SetCurrent:
      w.u64(d.expectedSequence).u64(d.version);
      break;
    case Tag.RemoveAlias:
      w.u64(d.expectedSequence);
      writeAliasName(w, d.name);
      break;
    case Tag.SetKeep:
      w.u64(d.expectedSequence).u8(d.keep);
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
        expectedSequence: r.u64n(),
        root: r.bytes(32),
        versionBytes: r.u64n(),
        keptBytes: r.u64n(),
        alias: readAliasName(r),
      };
      break;
    case Tag.SetCurrent:
      out = { tag, expectedSequence: r.u64n(), version: r.u64n() };
      break;
    case Tag.RemoveAlias:
      out = { tag, expectedSequence: r.u64n(), name: readAliasName(r) };
      break;
    case Tag.SetKeep:
      out = { tag, expectedSequence: r.u64n(), keep: r.u8() };
      break;
    default:
      throw new LayoutError(`unknown instruction tag ${String(tag)}`);
  }
  r.end();
  return out;
}
