import { PublicKey } from '@solana/web3.js';
import { ByteReader, ByteWriter, LayoutError } from './byte-codec';

/** First byte of every tape-program account: what kind of record it is. */
export enum AccountTag {
  Config = 1,
  Tape = 2,
  Track = 3,
  Name = 4,
}

export enum TrackKind {
  Blob = 0,
  Manifest = 1,
}

export const MAX_NAME_BYTES = 1024;
export const MAX_CONTENT_TYPE_BYTES = 255;
/**
 * Largest metadata blob a name may carry (opaque to the program; the S3 endpoint keeps object
 * headers, user metadata and checksums there). A SetName transaction bounds it further.
 */
export const MAX_NAME_METADATA_BYTES = 1024;

export interface NetworkConfig {
  epochDurationSecs: number;
  genesisTime: number;
  /** Storage-token base units per MiB per epoch. */
  pricePerMibEpoch: bigint;
  mint: PublicKey;
  /** Token account that receives storage payments. */
  treasury: PublicKey;
  /** The only key that may certify tracks (the storage operator). */
  storageAuthority: PublicKey;
  admin: PublicKey;
}

export interface TapeRecord {
  authority: PublicKey;
  delegate: PublicKey | null;
  capacity: number;
  used: number;
  activeEpoch: number;
  expiryEpoch: number;
  createdAt: number;
  nameCount: number;
  trackCount: number;
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

export interface TrackRecord {
  tape: PublicKey;
  commitment: Buffer;
  size: number;
  kind: TrackKind;
  certified: boolean;
  refs: number;
  createdAt: number;
  contentType: string;
}

export interface NameRecord {
  tape: PublicKey;
  track: PublicKey;
  commitment: Buffer;
  size: number;
  kind: TrackKind;
  updatedAt: number;
  contentType: string;
  name: string;
  /**
   * Opaque bytes after the name (a u16 length and the bytes), absent in names written without
   * any (and in every name written before the field existed).
   */
  metadata?: Buffer;
}

export const CONFIG_SIZE = 154;
export const TAPE_SIZE = 258;

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
/** Offset of the `tape` field in track and name accounts (for getProgramAccounts memcmp). */
export const TAPE_FIELD_OFFSET = 1;

export function trackSize(contentType: string): number {
  return 88 + Buffer.byteLength(contentType, 'utf8');
}

export function nameSize(name: string, contentType: string, metadata?: Buffer): number {
  const tail = metadata && metadata.length > 0 ? 2 + metadata.length : 0;
  return 117 + Buffer.byteLength(contentType, 'utf8') + Buffer.byteLength(name, 'utf8') + tail;
}

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
    .u64(t.used)
    .u64(t.activeEpoch)
    .u64(t.expiryEpoch)
    .i64(t.createdAt)
    .u32(t.nameCount)
    .u32(t.trackCount)
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
    used: r.u64n(),
    activeEpoch: r.u64n(),
    expiryEpoch: r.u64n(),
    createdAt: r.i64n(),
    nameCount: r.u32(),
    trackCount: r.u32(),
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

export function encodeTrack(t: TrackRecord): Buffer {
  return new ByteWriter()
    .u8(AccountTag.Track)
    .pubkey(t.tape)
    .bytes(t.commitment)
    .u64(t.size)
    .u8(t.kind)
    .u8(t.certified ? 1 : 0)
    .u32(t.refs)
    .i64(t.createdAt)
    .str(t.contentType, 1)
    .done();
}

export function decodeTrack(data: Buffer): TrackRecord {
  const r = reader(data, AccountTag.Track);
  const t: TrackRecord = {
    tape: r.pubkey(),
    commitment: r.bytes(32),
    size: r.u64n(),
    kind: trackKind(r.u8()),
    certified: r.u8() === 1,
    refs: r.u32(),
    createdAt: r.i64n(),
    contentType: r.str(1),
  };
  r.end();
  return t;
}

export function encodeName(n: NameRecord): Buffer {
  const w = new ByteWriter()
    .u8(AccountTag.Name)
    .pubkey(n.tape)
    .pubkey(n.track)
    .bytes(n.commitment)
    .u64(n.size)
    .u8(n.kind)
    .i64(n.updatedAt)
    .str(n.contentType, 1)
    .str(n.name, 2);
  // No metadata: no tail, so such a name is byte for byte what older programs wrote.
  if (n.metadata && n.metadata.length > 0) w.u16(n.metadata.length).bytes(n.metadata);
  return w.done();
}

export function decodeName(data: Buffer): NameRecord {
  const r = reader(data, AccountTag.Name);
  const n: NameRecord = {
    tape: r.pubkey(),
    track: r.pubkey(),
    commitment: r.bytes(32),
    size: r.u64n(),
    kind: trackKind(r.u8()),
    updatedAt: r.i64n(),
    contentType: r.str(1),
    name: r.str(2),
  };
  if (r.remaining > 0) n.metadata = r.bytes(r.u16());
  r.end();
  return n;
}

export function accountTag(data: Buffer): AccountTag | null {
  const tag = data[0];
  return tag >= AccountTag.Config && tag <= AccountTag.Name ? tag : null;
}

export function trackKind(v: number): TrackKind {
  if (v !== TrackKind.Blob && v !== TrackKind.Manifest) throw new LayoutError('unknown track kind');
  return v;
}

function reader(data: Buffer, tag: AccountTag): ByteReader {
  const r = new ByteReader(data);
  if (r.u8() !== tag) throw new LayoutError(`not a ${AccountTag[tag]} account`);
  return r;
}
