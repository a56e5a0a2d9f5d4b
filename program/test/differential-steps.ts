import { AccountMeta, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { decodeName } from '../../src/chain/account-layouts';
import { MIB, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../src/chain/program-ids';
import { encodeInstructionData, Tag } from '../../src/chain/tape-instruction-data';
import { GENESIS, SOL } from './differential-state';
import { publishStep } from './differential-publish';
import { CONTENT_TYPES, NAMES, Universe } from './differential-universe';
import { ProgramHost } from './program-host';
import { Prng } from './prng';

export type Step =
  | { kind: 'ix'; ix: TransactionInstruction; text: string }
  | { kind: 'clock'; unixTimestamp: number; text: string }
  | { kind: 'gift'; address: PublicKey; lamports: number; text: string };

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** Ordinary values, then edge values (picked one time in six). */
const COUNTS = [
  [1, 2, 10],
  [0, 2 ** 32, MAX_SAFE - 1, MAX_SAFE, 2 ** 53],
];
const BYTES = [
  [1, 100, 999, 1_000, MIB - 1, MIB, MIB + 1, 5 * MIB],
  [0, 2 ** 52, MAX_SAFE, 2 ** 53],
];
const SIZES = [
  [0, 1, 5, 400, 1_000, 5_000],
  [MIB, MAX_SAFE, 2 ** 53],
];
/** NAMES[0..5] and CONTENT_TYPES[0..4] are valid. */
const VALID_NAMES = 6;
const VALID_CONTENT_TYPES = 5;

/**
 * Random steps for the differential test: mostly tape-program instructions (valid ones, and
 * hostile variants), sometimes a clock change or lamports sent to an address.
 */
export class StepGenerator {
  constructor(
    private readonly u: Universe,
    private readonly rng: Prng,
  ) {}

  /** The next step; `state` (the oracle) lets it pick accounts that make sense, often. */
  next(state: ProgramHost): Step {
    const { rng } = this;
    const roll = rng.int(100);
    if (roll < 6) {
      const unixTimestamp = GENESIS + rng.pick([-100, 0, 1, 59, 3_599, 3_600, 36_000, 86_400 * 30]);
      return {
        kind: 'clock',
        unixTimestamp,
        text: `clock ${unixTimestamp - GENESIS}s after genesis`,
      };
    }
    if (roll < 10) {
      const address = rng.pick(this.u.all);
      const lamports = rng.pick([1, 1_000, 2 * SOL]);
      return {
        kind: 'gift',
        address,
        lamports,
        text: `gift ${lamports} to ${this.u.label(address)}`,
      };
    }
    const built = this.instruction(state);
    const mutated = this.mutate(built.ix, built.text);
    return { kind: 'ix', ...mutated };
  }

  private value(pools: number[][]): number {
    return this.rng.pick(pools[this.rng.chance(1 / 6) ? 1 : 0]);
  }

  private nameIndex(): number {
    return this.rng.chance(0.75) ? this.rng.int(VALID_NAMES) : this.rng.int(NAMES.length);
  }

  private contentType(): Buffer {
    const valid = this.rng.chance(0.85);
    return CONTENT_TYPES[this.rng.int(valid ? VALID_CONTENT_TYPES : CONTENT_TYPES.length)];
  }

  /** A commitment of tape `t`, most often one whose track exists (certified, when asked). */
  private commitment(state: ProgramHost, t: number, certified: boolean): number {
    const existing = this.u.tracks[t]
      .map((track, c) => ({ c, account: state.getAccount(track) }))
      .filter(({ account }) => account && account.data.length > 41 && account.data[0] === 3)
      .filter(({ account }) => !certified || account!.data[1 + 32 + 32 + 8 + 1] === 1);
    if (existing.length > 0 && this.rng.chance(0.75)) return this.rng.pick(existing).c;
    return this.rng.int(this.u.commitments.length);
  }

  private instruction(state: ProgramHost): { ix: TransactionInstruction; text: string } {
    const { rng, u } = this;
    const t = rng.int(u.tapes.length);
    const tape = u.tapes[t];
    const payer = rng.pick(u.payers);
    const ata = u.atas[u.payers.indexOf(payer)];
    const signer = rng.pick([
      u.authorities[t],
      u.authorities[t],
      u.authorities[t],
      rng.pick(u.delegates),
      u.stranger,
    ]);
    const c = rng.int(u.commitments.length);
    const ix = (keys: AccountMeta[], data: Buffer) =>
      new TransactionInstruction({ programId: u.pdas.programId, keys, data });
    const paying = [
      w(payer, true),
      w(tape),
      w(ata),
      w(u.treasury),
      ro(u.config),
      ro(TOKEN_PROGRAM_ID),
    ];
    const tag = rng.pick([
      0, 1, 1, 2, 3, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 9, 9, 10, 10, 10, 10,
    ]) as Tag;
    switch (tag) {
      case Tag.InitConfig: {
        const epochDurationSecs = rng.pick([0, 1, 3600]);
        const pricePerMibEpoch = rng.pick([0n, 1_000n, 2n ** 64n - 1n]);
        const mint = rng.pick([u.mint, u.mint, u.treasury, u.otherMint]);
        const treasury = rng.pick([u.treasury, u.treasury, u.atas[0]]);
        const keys = [w(u.admin, true), w(u.config), ro(mint), ro(treasury), ro(SYSTEM_PROGRAM_ID)];
        const data = encodeInstructionData({
          tag,
          epochDurationSecs,
          genesisTime: GENESIS,
          pricePerMibEpoch,
          storageAuthority: u.storageAuthority,
        });
        const text = `InitConfig(duration ${epochDurationSecs}, price ${pricePerMibEpoch}, ${u.label(mint)}, ${u.label(treasury)})`;
        return { ix: ix(keys, data), text };
      }
      case Tag.CreateTape: {
        const capacity = this.value(BYTES);
        const epochs = this.value(COUNTS);
        const keys = [
          w(payer, true),
          ro(u.authorities[t], true),
          w(tape),
          w(ata),
          w(u.treasury),
          ro(u.config),
          ro(SYSTEM_PROGRAM_ID),
          ro(TOKEN_PROGRAM_ID),
        ];
        const data = encodeInstructionData({ tag, capacity, epochs });
        const text = `CreateTape(tape${t}, capacity ${capacity}, epochs ${epochs}, by ${u.label(payer)})`;
        return { ix: ix(keys, data), text };
      }
      case Tag.ExtendTape: {
        const epochs = this.value(COUNTS);
        const data = encodeInstructionData({ tag, epochs });
        return {
          ix: ix(paying, data),
          text: `ExtendTape(tape${t}, ${epochs}, by ${u.label(payer)})`,
        };
      }
      case Tag.ResizeTape: {
        const addBytes = this.value(BYTES);
        const data = encodeInstructionData({ tag, addBytes });
        return {
          ix: ix(paying, data),
          text: `ResizeTape(tape${t}, +${addBytes}, by ${u.label(payer)})`,
        };
      }
      case Tag.SetDelegate: {
        const delegate = rng.pick([null, ...u.delegates]);
        const keys = [ro(u.authorities[t], true), w(tape)];
        const data = encodeInstructionData({ tag, delegate });
        return {
          ix: ix(keys, data),
          text: `SetDelegate(tape${t}, ${delegate ? u.label(delegate) : 'none'})`,
        };
      }
      case Tag.WriteTrack: {
        const size = this.value(SIZES);
        const kind = rng.chance(0.05) ? rng.range(2, 255) : rng.int(2);
        const contentType = this.contentType();
        const keys = [
          w(payer, true),
          ro(signer, true),
          w(tape),
          w(u.tracks[t][c]),
          ro(u.config),
          ro(SYSTEM_PROGRAM_ID),
        ];
        const data = Buffer.concat([
          Buffer.from([Tag.WriteTrack]),
          u.commitments[c],
          u64(size),
          Buffer.from([kind, contentType.length & 0xff]),
          contentType,
        ]);
        const text = `WriteTrack(track${t}.${c}, size ${size}, kind ${kind}, type ${contentType.length}B, by ${u.label(signer)})`;
        return { ix: ix(keys, data), text };
      }
      case Tag.SetName: {
        const n = this.nameIndex();
        const name = NAMES[n];
        const contentType = this.contentType();
        const nameAddress = u.names[t][n];
        const pointedAt = trackOf(state, nameAddress);
        let previous: PublicKey | undefined;
        if (pointedAt && rng.chance(0.8)) previous = pointedAt;
        else if (rng.chance(0.2)) previous = rng.pick(u.tracks[t]);
        const track = u.tracks[t][this.commitment(state, t, true)];
        const keys = [
          w(payer, true),
          ro(signer, true),
          w(tape),
          w(nameAddress),
          w(track),
          ro(u.config),
          ro(SYSTEM_PROGRAM_ID),
        ];
        if (previous && (!previous.equals(track) || rng.chance(0.3))) keys.push(w(previous));
        // Metadata (the optional tail) one time in three: none, empty, ordinary, largest, too large.
        const metadataBytes = rng.chance(1 / 3) ? rng.pick([0, 1, 40, 1_024, 1_025]) : undefined;
        const metadata =
          metadataBytes === undefined
            ? Buffer.alloc(0)
            : Buffer.concat([u16(metadataBytes), Buffer.alloc(metadataBytes, 0xa5)]);
        const data = Buffer.concat([
          Buffer.from([Tag.SetName]),
          u16(name.length),
          name,
          Buffer.from([contentType.length & 0xff]),
          contentType,
          metadata,
        ]);
        const prev = previous ? `, previous ${u.label(previous)}` : '';
        const tc = u.label(track);
        const meta = metadataBytes === undefined ? '' : `, metadata ${metadataBytes}B`;
        const text = `SetName(name${t}.${n}, ${tc}, type ${contentType.length}B${meta}${prev}, by ${u.label(signer)})`;
        return { ix: ix(keys, data), text };
      }
      case Tag.CertifyTrack: {
        const own = u.tracks[t][this.commitment(state, t, false)];
        const track = rng.chance(0.9) ? own : rng.pick(u.all);
        const authority = rng.chance(0.85) ? u.storageAuthority : rng.pick([u.admin, signer]);
        const keys = [ro(authority, true), ro(u.config), w(track)];
        const text = `CertifyTrack(${u.label(track)}, by ${u.label(authority)})`;
        return { ix: ix(keys, Buffer.from([tag])), text };
      }
      case Tag.RemoveName: {
        const n = rng.int(6);
        const pointedAt = trackOf(state, u.names[t][n]);
        const track = pointedAt && rng.chance(0.8) ? pointedAt : u.tracks[t][c];
        const keys = [w(payer, true), ro(signer, true), w(tape), w(u.names[t][n]), w(track)];
        const text = `RemoveName(name${t}.${n}, ${u.label(track)}, by ${u.label(signer)})`;
        return { ix: ix(keys, Buffer.from([tag])), text };
      }
      case Tag.ReleaseTrack: {
        const track = u.tracks[t][this.commitment(state, t, false)];
        const keys = [w(payer, true), ro(signer, true), w(tape), w(track)];
        const text = `ReleaseTrack(${u.label(track)}, by ${u.label(signer)})`;
        return { ix: ix(keys, Buffer.from([tag])), text };
      }
      case Tag.Publish:
        return publishStep({ u, rng, state, t, signer, size: () => this.value(SIZES) });
    }
  }

  /** Sometimes a hostile variant: flags dropped, accounts missing or swapped, data broken. */
  private mutate(
    ix: TransactionInstruction,
    text: string,
  ): { ix: TransactionInstruction; text: string } {
    const { rng, u } = this;
    let keys = ix.keys.map((k) => ({ ...k }));
    let data = ix.data;
    const notes: string[] = [];
    const index = (): number => rng.int(keys.length);
    if (keys.length > 0 && rng.chance(0.08)) {
      const i = index();
      keys[i].isSigner = false;
      notes.push(`key ${i} not signing`);
    }
    if (keys.length > 0 && rng.chance(0.08)) {
      const i = index();
      keys[i].isWritable = false;
      notes.push(`key ${i} read-only`);
    }
    if (keys.length > 0 && rng.chance(0.1)) {
      const i = index();
      const other = rng.chance(0.2) ? u.forged : rng.pick(u.all);
      keys[i].pubkey = other;
      notes.push(`key ${i} := ${u.label(other)}`);
    }
    if (rng.chance(0.04)) {
      const count = rng.int(keys.length);
      keys = keys.slice(0, count);
      notes.push(`${count} keys`);
    }
    if (rng.chance(0.06)) {
      const roll = rng.int(4);
      if (roll === 0 && data.length > 0) {
        data = data.subarray(0, rng.int(data.length));
        notes.push(`data cut to ${data.length}B`);
      } else if (roll === 1) {
        data = Buffer.concat([data, Buffer.from([rng.int(256)])]);
        notes.push('a trailing byte');
      } else if (roll === 2) {
        data = Buffer.concat([Buffer.from([rng.range(11, 255)]), data.subarray(1)]);
        notes.push(`tag ${data[0]}`);
      } else {
        data = rng.bytes(rng.int(12));
        notes.push(`data ${data.toString('hex')}`);
      }
    }
    const mutated = new TransactionInstruction({ programId: ix.programId, keys, data });
    return { ix: mutated, text: notes.length ? `${text} [${notes.join('; ')}]` : text };
  }
}

function w(pubkey: PublicKey, isSigner = false): AccountMeta {
  return { pubkey, isSigner, isWritable: true };
}

function ro(pubkey: PublicKey, isSigner = false): AccountMeta {
  return { pubkey, isSigner, isWritable: false };
}

/** The track a name account points at, if it holds a name record. */
function trackOf(state: ProgramHost, name: PublicKey): PublicKey | undefined {
  const account = state.getAccount(name);
  if (!account) return undefined;
  try {
    return decodeName(account.data).track;
  } catch {
    return undefined;
  }
}

function u64(value: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(value));
  return b;
}

function u16(value: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(value);
  return b;
}
