import { AccountMeta, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { MIB, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../src/chain/program-ids';
import { encodeInstructionData, Tag } from '../../src/chain/tape-instruction-data';
import { GENESIS, SOL } from './differential-state';
import { historyStep, publishStep } from './differential-publish';
import { Universe } from './differential-universe';
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
/** Tags of the per-file instructions removed in 1.2.0: invalid instruction data on both hosts. */
const RETIRED_TAGS = [5, 6, 7, 8, 9];

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
    const tag = rng.pick([0, 1, 1, 2, 3, 4, 4, 5, 10, 10, 10, 10, 11, 11, 12, 12, 13]) as Tag;
    if ((tag as number) === 5) {
      // One of the retired tags, with data and accounts as their instructions had them.
      const retired = rng.pick(RETIRED_TAGS);
      const data = Buffer.concat([Buffer.from([retired]), rng.bytes(rng.int(48))]);
      const keys = [w(payer, true), ro(signer, true), w(tape), ro(u.config), ro(SYSTEM_PROGRAM_ID)];
      return { ix: ix(keys, data), text: `retired tag ${retired} (${data.length}B)` };
    }
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
      case Tag.Publish:
        return publishStep({ u, rng, state, t, signer, size: () => this.value(SIZES) });
      case Tag.SetCurrent:
      case Tag.RemoveAlias:
      case Tag.SetKeep:
        return historyStep({ u, rng, state, t, signer, tag });
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
        data = Buffer.concat([Buffer.from([rng.range(14, 255)]), data.subarray(1)]);
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
