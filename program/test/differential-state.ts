import { PublicKey } from '@solana/web3.js';
import {
  CONFIG_SIZE,
  encodeConfig,
  encodeTape,
  NO_VERSION,
  TapeRecord,
} from '../../src/chain/account-layouts';
import { DEFAULT_TAPE_PROGRAM_ID, MIB, TOKEN_PROGRAM_ID } from '../../src/chain/program-ids';
import { evictUnkept } from '../../src/chain/tape-history';
import { encodeMint, MINT_SIZE } from '../../src/chain/spl-token-layouts';
import { rentExempt } from './oracle/test-ledger';
import { Universe } from './differential-universe';
import { HostAccount } from './program-host';
import { Prng } from './prng';
import { tokenAccount } from './token-accounts';

export const GENESIS = 1_700_000_000;
export const SOL = 1_000_000_000;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

export type StartingState = { address: PublicKey; account: HostAccount }[];

const program = (data: Buffer): HostAccount => ({
  lamports: rentExempt(data.length),
  owner: DEFAULT_TAPE_PROGRAM_ID,
  data,
  executable: false,
});

/** Alias names the generator uses (valid ones; the steps add invalid ones). */
export const ALIAS_NAMES = ['pr-1', 'pr-2', 'staging', 'preview', 'a', 'b', 'c', 'd', 'e'];

type VersionFields = Pick<
  TapeRecord,
  'version' | 'latestVersion' | 'sequence' | 'keptBytes' | 'keep' | 'history' | 'aliases'
>;

/**
 * No version, or a history as instructions leave it (current, aliases, the newest `keep`, the
 * rest evicted), or the counters at their limits.
 */
function randomVersion(u: Universe, rng: Prng): VersionFields {
  const keep = rng.pick([1, 2, 3, 10, 16]);
  if (rng.chance(0.35)) return { ...NO_VERSION, keep };
  const latestVersion = rng.chance(0.9) ? rng.range(1, 6) : MAX_SAFE;
  const count = Math.min(latestVersion, rng.range(1, 6));
  const history = Array.from({ length: count }, (_, i) => ({
    version: latestVersion - count + 1 + i,
    root: rng.pick(u.commitments),
    bytes: rng.pick([0, 5, 400, 1_000]),
    publishedAt: GENESIS,
  }));
  const numbers = history.map((v) => v.version);
  const names = [...ALIAS_NAMES];
  for (let i = names.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [names[i], names[j]] = [names[j], names[i]];
  }
  const aliasCount = rng.chance(0.1) ? 8 : rng.pick([0, 0, 1, 2, 3]);
  const aliases = names.slice(0, aliasCount).map((name) => ({ name, version: rng.pick(numbers) }));
  const fields = { version: rng.pick(numbers), keep, history, aliases };
  const kept = evictUnkept(fields);
  return {
    ...fields,
    history: kept,
    latestVersion,
    sequence: rng.chance(0.9) ? Math.min(latestVersion + rng.int(4), MAX_SAFE) : MAX_SAFE,
    keptBytes: kept.reduce((n, v) => n + v.bytes, 0) + rng.pick([0, 5]),
  };
}

/**
 * A random network to start a sequence from, written as account bytes (faster than running
 * instructions, and it reaches states instructions reach slowly: counters at their limits,
 * expired tapes, delegates, certified tracks with names, frozen or foreign token accounts).
 */
export function randomStartingState(u: Universe, rng: Prng): StartingState {
  const out: StartingState = [];
  const put = (address: PublicKey, account: HostAccount) => out.push({ address, account });
  const wallet = (lamports: number): HostAccount => ({
    lamports,
    owner: PublicKey.default,
    data: Buffer.alloc(0),
    executable: false,
  });
  const token = (owner: PublicKey, amount: bigint, mint = u.mint, state = 1): HostAccount => ({
    ...tokenAccount(mint, owner, amount, state),
    executable: false,
  });

  put(u.admin, wallet(rng.pick([10 * SOL, rentExempt(CONFIG_SIZE) - 1])));
  put(u.storageAuthority, wallet(SOL));
  put(u.mint, {
    lamports: rentExempt(MINT_SIZE),
    owner: TOKEN_PROGRAM_ID,
    data: encodeMint({
      mintAuthority: u.admin,
      supply: 0n,
      decimals: 6,
      isInitialized: true,
      freezeAuthority: null,
    }),
    executable: false,
  });
  put(u.treasury, token(u.admin, rng.pick([0n, 5_000n])));
  if (rng.chance(0.3)) put(u.stranger, wallet(SOL));
  for (const d of u.delegates) if (rng.chance(0.5)) put(d, wallet(SOL));

  if (rng.chance(0.95)) {
    const data = encodeConfig({
      epochDurationSecs: rng.pick([1, 60, 3600, 3600, 86_400]),
      genesisTime: GENESIS,
      pricePerMibEpoch: rng.pick([0n, 1n, 1_000n, 10n ** 12n]),
      mint: u.mint,
      treasury: u.treasury,
      storageAuthority: u.storageAuthority,
      admin: u.admin,
    });
    put(u.config, program(data));
  }

  u.payers.forEach((payer, i) => {
    put(payer, wallet(rng.pick([0, 890_880, 2_000_000, 10 * SOL, 10 * SOL, 10 * SOL])));
    if (rng.chance(0.8)) {
      const amount = rng.pick([0n, 1n, 999n, 1_000n, 10n ** 6n, 10n ** 12n, 2n ** 62n]);
      const roll = rng.int(10);
      if (roll === 0) put(u.atas[i], token(payer, amount, u.otherMint));
      else if (roll === 1) put(u.atas[i], token(payer, amount, u.mint, 2));
      else if (roll === 2) put(u.atas[i], token(u.stranger, amount));
      else put(u.atas[i], token(payer, amount));
    }
  });

  u.tapes.forEach((tape, t) => {
    if (!rng.chance(0.7)) {
      if (rng.chance(0.15)) put(tape, wallet(rng.pick([1, 1_000, 2 * SOL])));
      return;
    }
    const capacity = rng.pick([1, 1_000, 5_000, MIB, MIB + 1, 3 * MIB, MAX_SAFE - 10, MAX_SAFE]);
    put(
      tape,
      program(
        encodeTape({
          authority: u.authorities[t],
          delegate: rng.chance(0.4) ? rng.pick(u.delegates) : null,
          capacity,
          activeEpoch: 0,
          expiryEpoch: rng.pick([0, 1, 5, 10, 20, MAX_SAFE]),
          createdAt: GENESIS,
          payer: rng.pick(u.payers),
          ...randomVersion(u, rng),
        }),
      ),
    );
  });
  const records = out.filter((e) => e.account.owner.equals(DEFAULT_TAPE_PROGRAM_ID));
  if (records.length > 0 && rng.chance(0.15)) put(u.forged, { ...rng.pick(records).account });
  return out;
}
