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
  /** The current version, counting from 1 per tape; 0 while none is published. */
  version: number;
  /** Commitment of the current version's root manifest node; 32 zero bytes when none. */
  root: Buffer;
  /** Unique bytes the current version references, as the storage authority certified. */
  versionBytes: number;
  /** Unix time of the last Publish (0 before the first). */
  publishedAt: number;
  /** The version before the current one, kept for rollback and garbage collection. */
  prevVersion: number;
  prevRoot: Buffer;
  prevVersionBytes: number;
  /** Unique bytes of the kept versions (current and previous), charged against capacity. */
  keptBytes: number;
}

export const CONFIG_SIZE = 154;
export const TAPE_SIZE = 242;

/** The version fields of a tape that has published none (what CreateTape writes). */
export const NO_VERSION: Readonly<
  Pick<
    TapeRecord,
    | 'version'
    | 'root'
    | 'versionBytes'
    | 'publishedAt'
    | 'prevVersion'
    | 'prevRoot'
    | 'prevVersionBytes'
    | 'keptBytes'
  >
> = {
  version: 0,
  root: Buffer.alloc(32),
  versionBytes: 0,
  publishedAt: 0,
  prevVersion: 0,
  prevRoot: Buffer.alloc(32),
  prevVersionBytes: 0,
  keptBytes: 0,
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
  return new ByteWriter()
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
    .bytes(t.root)
    .u64(t.versionBytes)
    .i64(t.publishedAt)
    .u64(t.prevVersion)
    .bytes(t.prevRoot)
    .u64(t.prevVersionBytes)
    .u64(t.keptBytes)
    .done();
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
    root: r.bytes(32),
    versionBytes: r.u64n(),
    publishedAt: r.i64n(),
    prevVersion: r.u64n(),
    prevRoot: r.bytes(32),
    prevVersionBytes: r.u64n(),
    keptBytes: r.u64n(),
  };
  r.end();
  return t;
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
