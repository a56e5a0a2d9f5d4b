import { AccountMeta, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { decodeTape, TapeRecord } from '../../src/chain/account-layouts';
import { encodeInstructionData, Tag } from '../../src/chain/tape-instruction-data';
import { ALIAS_NAMES } from './differential-state';
import { Universe } from './differential-universe';
import { ProgramHost } from './program-host';
import { Prng } from './prng';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** Names no instruction accepts: the pinned-version spelling, `--`, capitals, a bad end. */
const INVALID_ALIASES = ['v2', 'a--b', 'Caps', 'end-'];

interface StepArgs {
  u: Universe;
  rng: Prng;
  state: ProgramHost;
  t: number;
  signer: PublicKey;
}

type Built = { ix: TransactionInstruction; text: string };

/** The tape's sequence as a careful writer reads it, or a stale or wrong one. */
function expectedSequence(rng: Prng, tape: TapeRecord | undefined): number {
  const sequence = tape?.sequence ?? 0;
  return rng.chance(0.8)
    ? sequence
    : rng.pick([0, 1, sequence + 1, Math.max(sequence - 1, 0), MAX_SAFE]);
}

/** An alias name: one the tape has, one it has not, or an invalid one. */
function aliasName(rng: Prng, tape: TapeRecord | undefined): string {
  const roll = rng.int(10);
  if (roll < 5 && tape && tape.aliases.length > 0) return rng.pick(tape.aliases).name;
  if (roll < 9) return rng.pick(ALIAS_NAMES);
  return rng.pick(INVALID_ALIASES);
}

/**
 * Publish for the differential test, most often as a careful publisher would send it: the
 * tape's sequence, kept bytes at least the version's; live or under an alias; sometimes stale
 * or wrong. `size` draws a byte count from the generator's pools.
 */
export function publishStep(a: StepArgs & { size: () => number }): Built {
  const { u, rng, t, signer } = a;
  const tape = tapeOf(a.state, u.tapes[t]);
  const expected = expectedSequence(rng, tape);
  const root = rng.chance(0.95) ? rng.pick(u.commitments) : Buffer.alloc(32);
  const versionBytes = a.size();
  const keptBytes = rng.chance(0.85)
    ? Math.min(versionBytes + rng.pick([0, 0, 5, 400]), MAX_SAFE)
    : rng.pick([Math.max(versionBytes - 1, 0), a.size()]);
  const alias = rng.chance(0.6) ? '' : aliasName(rng, tape);
  const authority = rng.chance(0.85) ? u.storageAuthority : rng.pick([u.admin, signer]);
  const keys = [
    { pubkey: signer, isSigner: true, isWritable: false },
    { pubkey: authority, isSigner: true, isWritable: false },
    { pubkey: u.tapes[t], isSigner: false, isWritable: true },
    { pubkey: u.config, isSigner: false, isWritable: false },
  ];
  const data = encodeInstructionData({
    tag: Tag.Publish,
    expectedSequence: expected,
    root,
    versionBytes,
    keptBytes,
    alias,
  });
  const text =
    `Publish(tape${t}, expected ${expected}, ${versionBytes}B, kept ${keptBytes}B` +
    `${alias ? `, alias ${alias}` : ''}, by ${u.label(signer)} and ${u.label(authority)})`;
  return { ix: new TransactionInstruction({ programId: u.pdas.programId, keys, data }), text };
}

/** SetCurrent, RemoveAlias or SetKeep: mostly on what the tape holds, sometimes not. */
export function historyStep(
  a: StepArgs & { tag: Tag.SetCurrent | Tag.RemoveAlias | Tag.SetKeep },
): Built {
  const { u, rng, t, signer } = a;
  const tape = tapeOf(a.state, u.tapes[t]);
  const expected = expectedSequence(rng, tape);
  const keys: AccountMeta[] = [
    { pubkey: signer, isSigner: true, isWritable: false },
    { pubkey: u.tapes[t], isSigner: false, isWritable: true },
  ];
  const ix = (data: Buffer) =>
    new TransactionInstruction({ programId: u.pdas.programId, keys, data });
  const by = `by ${u.label(signer)}`;
  if (a.tag === Tag.SetCurrent) {
    keys.push({ pubkey: u.config, isSigner: false, isWritable: false });
    const kept = tape?.history.map((v) => v.version) ?? [];
    const version =
      kept.length > 0 && rng.chance(0.8)
        ? rng.pick(kept)
        : rng.pick([0, 1, (tape?.latestVersion ?? 0) + 1, MAX_SAFE]);
    const data = encodeInstructionData({ tag: a.tag, expectedSequence: expected, version });
    return { ix: ix(data), text: `SetCurrent(tape${t}, expected ${expected}, ${version}, ${by})` };
  }
  if (a.tag === Tag.RemoveAlias) {
    const name = aliasName(rng, tape);
    const data = encodeInstructionData({ tag: a.tag, expectedSequence: expected, name });
    return { ix: ix(data), text: `RemoveAlias(tape${t}, expected ${expected}, ${name}, ${by})` };
  }
  const keep = rng.chance(0.85) ? rng.range(1, 16) : rng.pick([0, 17, 255]);
  const data = encodeInstructionData({ tag: a.tag, expectedSequence: expected, keep });
  return { ix: ix(data), text: `SetKeep(tape${t}, expected ${expected}, ${keep}, ${by})` };
}

/** The tape record at `address`, if it holds one. */
function tapeOf(state: ProgramHost, address: PublicKey): TapeRecord | undefined {
  const account = state.getAccount(address);
  if (!account) return undefined;
  try {
    return decodeTape(account.data);
  } catch {
    return undefined;
  }
}
