import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { decodeTape, TapeRecord } from '../../src/chain/account-layouts';
import { Tag } from '../../src/chain/tape-instruction-data';
import { Universe } from './differential-universe';
import { ProgramHost } from './program-host';
import { Prng } from './prng';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * Publish for the differential test, most often as a careful publisher would send it: the
 * tape's current version, a byte count its previous version and the added bytes can hold;
 * sometimes stale or wrong. `size` draws a byte count from the generator's pools.
 */
export function publishStep(a: {
  u: Universe;
  rng: Prng;
  state: ProgramHost;
  t: number;
  signer: PublicKey;
  size: () => number;
}): { ix: TransactionInstruction; text: string } {
  const { u, rng, t, signer } = a;
  const current = tapeOf(a.state, u.tapes[t]);
  const version = current?.version ?? 0;
  const before = version === 0 ? 0 : (current?.versionBytes ?? 0);
  const expectedVersion = rng.chance(0.8)
    ? version
    : rng.pick([0, 1, version + 1, Math.max(version - 1, 0), MAX_SAFE]);
  const root = rng.chance(0.95) ? rng.pick(u.commitments) : Buffer.alloc(32);
  const addedBytes = a.size();
  // Valid: at most the previous bytes plus the added ones, at least the added ones.
  const dropped = rng.int(Math.min(before, 5_000) + 1);
  const versionBytes = rng.chance(0.85)
    ? before + addedBytes - dropped
    : rng.pick([Math.max(addedBytes - 1, 0), before + addedBytes + 1, a.size()]);
  const authority = rng.chance(0.85) ? u.storageAuthority : rng.pick([u.admin, signer]);
  const keys = [
    { pubkey: signer, isSigner: true, isWritable: false },
    { pubkey: authority, isSigner: true, isWritable: false },
    { pubkey: u.tapes[t], isSigner: false, isWritable: true },
    { pubkey: u.config, isSigner: false, isWritable: false },
  ];
  const data = Buffer.concat([
    Buffer.from([Tag.Publish]),
    u64(expectedVersion),
    root,
    u64(versionBytes),
    u64(addedBytes),
  ]);
  const text =
    `Publish(tape${t}, expected ${expectedVersion}, ${versionBytes}B of which ${addedBytes}B new, ` +
    `by ${u.label(signer)} and ${u.label(authority)})`;
  return { ix: new TransactionInstruction({ programId: u.pdas.programId, keys, data }), text };
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

function u64(value: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(value));
  return b;
}
