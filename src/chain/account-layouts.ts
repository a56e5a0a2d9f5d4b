import { PublicKey } from '@solana/web3.js';
import { ByteReader, ByteWriter, LayoutError } from './byte-codec';

/** First byte of every tape-program account: what kind of record it is. */
export enum AccountTag {
  Config = 1,
  Tape = 2,
  // 3 and 4 were the per-file Track and Name records of programs before 1.2.0.
}

export interface NetworkConfig {
  epochDurationSecs: number;
  genesisTime: number;
  /** Storage-token base units per MiB per epoch. */
  pricePerMibEpoch: bigint;
  mint: PublicKey;
  /** Token account that receives storage payments. */
  treasury: PublicKey;
  /** The only key that may certify versions (the storage operator): it co-signs Publish. */
  storageAuthority: PublicKey;
  admin: PublicKey;
}

export interface KeptVersion {
  version: number;
  /** Commitment of the version's root manifest node (never all zeros). */
  root: Buffer;
  /** Unique bytes the version references, as the storage authority certified. */
  bytes: number;
  /** Unix time (cluster clock) of the Publish that made it. */
  publishedAt: number;
}

export interface TapeAlias {
  name: string;
  version: number;
}

export interface TapeRecord {
  authority: PublicKey;
  delegate: PublicKey | null;
  /** Bytes the tape's kept versions may hold (their unique bytes: `keptBytes`). */
  capacity: number;
  activeEpoch: number;
  expiryEpoch: number;
  createdAt: number;
  /** Who paid the tape's rent at CreateTape: rent only ever goes back to this account. */
  payer: PublicKey;
  /** The current version (served at "/"), counting from 1 per tape; 0 while none is published. */
  version: number;
  /** The highest version number ever published: the next Publish makes `latestVersion + 1`. */
  latestVersion: number;
  /** +1 on every change of current, history, aliases or keep: the compare-and-swap counter. */
  sequence: number;
  /** Unique bytes of the kept versions as certified at the last Publish, charged against capacity. */
  keptBytes: number;
  /** How many of the newest versions are kept (1..16; 10 at CreateTape). */
  keep: number;
  /** The kept versions, sorted by version ascending (the current one is always among them). */
  history: KeptVersion[];
  /** Named versions (previews): each points at a kept version. */
  aliases: TapeAlias[];
}

export const CONFIG_SIZE = 154;
/** Slots of the history table and the alias table (docs/program.md, "Accounts"). */
export const HISTORY_SLOTS = 32;
export const ALIAS_SLOTS = 8;
export const ALIAS_NAME_MAX = 24;
export const KEEP_MAX = 16;
export const DEFAULT_KEEP = 10;
const HISTORY_ENTRY_SIZE = 8 + 32 + 8 + 8;
const ALIAS_ENTRY_SIZE = 1 + ALIAS_NAME_MAX + 8;
export const TAPE_SIZE =
  130 + 34 + HISTORY_SLOTS * HISTORY_ENTRY_SIZE + 1 + ALIAS_SLOTS * ALIAS_ENTRY_SIZE;

/** The version fields of a tape that has published none (what CreateTape writes). */
export const NO_VERSION: Readonly<
  Pick<
    TapeRecord,
    'version' | 'latestVersion' | 'sequence' | 'keptBytes' | 'keep' | 'history' | 'aliases'
  >
> = {
  version: 0,
  latestVersion: 0,
  sequence: 0,
  keptBytes: 0,
  keep: DEFAULT_KEEP,
  history: [],
  aliases: [],
};

export function encodeConfig(c: NetworkConfig): Buffer {
  return new ByteWriter()
    .u8(AccountTag.Config)
    .u8(1)
    .u64(c.epochDurationSecs)
    .i64(c.genesisTime)
    .u64(c.pricePerMibEpoch)
    .pubkey(c.mint)
    .pubkey(c.treasury)
    .pubkey(c.storageAuthority)
    .pubkey(c.admin)
    .done();
}

export function decodeConfig(data: Buffer): NetworkConfig {
  const r = reader(data, AccountTag.Config);
  if (r.u8() !== 1) throw new LayoutError('unknown config version');
  const c: NetworkConfig = {
    epochDurationSecs: r.u64n(),
    genesisTime: r.i64n(),
    pricePerMibEpoch: r.u64(),
    mint: r.pubkey(),
    treasury: r.pubkey(),
    storageAuthority: r.pubkey(),
    admin: r.pubkey(),
  };
  r.end();
  return c;
}

export function encodeTape(t: TapeRecord): Buffer {
  if (t.history.length > HISTORY_SLOTS || t.aliases.length > ALIAS_SLOTS) {
    throw new LayoutError('a tape holds at most 32 versions and 8 aliases');
  }
  const w = new ByteWriter()
    .u8(AccountTag.Tape)
    .pubkey(t.authority)
    .u8(t.delegate ? 1 : 0)
    .pubkey(t.delegate ?? PublicKey.default)
    .u64(t.capacity)
    .u64(t.activeEpoch)
    .u64(t.expiryEpoch)
    .i64(t.createdAt)
    .pubkey(t.payer)
    .u64(t.version)
    .u64(t.latestVersion)
    .u64(t.sequence)
    .u64(t.keptBytes)
    .u8(t.keep)
    .u8(t.history.length);
  for (let i = 0; i < HISTORY_SLOTS; i++) {
    const v = t.history[i];
    if (v) w.u64(v.version).bytes(v.root).u64(v.bytes).i64(v.publishedAt);
    else w.bytes(Buffer.alloc(HISTORY_ENTRY_SIZE));
  }
  w.u8(t.aliases.length);
  for (let i = 0; i < ALIAS_SLOTS; i++) {
    const a = t.aliases[i];
    if (!a) {
      w.bytes(Buffer.alloc(ALIAS_ENTRY_SIZE));
      continue;
    }
    writeAliasName(w, a.name);
    w.u64(a.version);
  }
  return w.done();
}

export function decodeTape(data: Buffer): TapeRecord {
  const r = reader(data, AccountTag.Tape);
  const authority = r.pubkey();
  const hasDelegate = r.u8();
  const delegateKey = r.pubkey();
  const t: TapeRecord = {
    authority,
    delegate: hasDelegate ? delegateKey : null,
    capacity: r.u64n(),
    activeEpoch: r.u64n(),
    expiryEpoch: r.u64n(),
    createdAt: r.i64n(),
    payer: r.pubkey(),
    version: r.u64n(),
    latestVersion: r.u64n(),
    sequence: r.u64n(),
    keptBytes: r.u64n(),
    keep: r.u8(),
    history: [],
    aliases: [],
  };
  // The slots past the counts are not read (the program writes zeros there).
  const historyLen = atMost(r.u8(), HISTORY_SLOTS, 'history_len');
  for (let i = 0; i < HISTORY_SLOTS; i++) {
    if (i >= historyLen) {
      r.bytes(HISTORY_ENTRY_SIZE);
      continue;
    }
    t.history.push({
      version: r.u64n(),
      root: r.bytes(32),
      bytes: r.u64n(),
      publishedAt: r.i64n(),
    });
  }
  const aliasCount = atMost(r.u8(), ALIAS_SLOTS, 'alias_count');
  for (let i = 0; i < ALIAS_SLOTS; i++) {
    if (i >= aliasCount) {
      r.bytes(ALIAS_ENTRY_SIZE);
      continue;
    }
    const name = readAliasName(r);
    t.aliases.push({ name, version: r.u64n() });
  }
  r.end();
  return t;
}

/** `value`, refused past `max` (`<field> <value> exceeds <max>`, as the program says it). */
export function atMost(value: number, max: number, field: string): number {
  if (value > max) throw new LayoutError(`${field} ${value} exceeds ${max}`);
  return value;
}

/** `u8 len, [24] name`: an alias name as tape records and instructions carry it. */
export function readAliasName(r: ByteReader): string {
  const len = r.u8();
  const field = r.bytes(ALIAS_NAME_MAX);
  return field.subarray(0, atMost(len, ALIAS_NAME_MAX, 'alias length')).toString('latin1');
}

/** Writes `u8 len, [24] name`, zero padded. */
export function writeAliasName(w: ByteWriter, name: string): void {
  const field = Buffer.alloc(ALIAS_NAME_MAX);
  const len = field.write(name, 'latin1');
  if (len !== name.length || name.length > ALIAS_NAME_MAX) {
    throw new RangeError(`alias name of ${name.length} characters exceeds ${ALIAS_NAME_MAX}`);
  }
  w.u8(len).bytes(field);
}

export function accountTag(data: Buffer): AccountTag | null {
  const tag = data[0];
  return tag >= AccountTag.Config && tag <= AccountTag.Tape ? tag : null;
}

function reader(data: Buffer, tag: AccountTag): ByteReader {
  const r = new ByteReader(data);
  if (r.u8() !== tag) throw new LayoutError(`not a ${AccountTag[tag]} account`);
  return r;
}
