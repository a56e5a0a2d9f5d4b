import { PublicKey } from '@solana/web3.js';
import { ByteReader, ByteWriter } from './byte-codec';

/** SPL Token account layouts (byte-compatible with the Token program). */
export const MINT_SIZE = 82;
export const TOKEN_ACCOUNT_SIZE = 165;

export interface MintRecord {
  mintAuthority: PublicKey | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: PublicKey | null;
}

export interface TokenAccountRecord {
  mint: PublicKey;
  owner: PublicKey;
  amount: bigint;
  delegate: PublicKey | null;
  /** 0 uninitialized, 1 initialized, 2 frozen */
  state: number;
  isNative: bigint | null;
  delegatedAmount: bigint;
  closeAuthority: PublicKey | null;
}

function optionKey(w: ByteWriter, key: PublicKey | null): void {
  w.u32(key ? 1 : 0).pubkey(key ?? PublicKey.default);
}

function readOptionKey(r: ByteReader): PublicKey | null {
  const tag = r.u32();
  const key = r.pubkey();
  return tag === 1 ? key : null;
}

export function encodeMint(m: MintRecord): Buffer {
  const w = new ByteWriter();
  optionKey(w, m.mintAuthority);
  w.u64(m.supply)
    .u8(m.decimals)
    .u8(m.isInitialized ? 1 : 0);
  optionKey(w, m.freezeAuthority);
  return w.done();
}

export function decodeMint(data: Buffer): MintRecord {
  const r = new ByteReader(data);
  const m: MintRecord = {
    mintAuthority: readOptionKey(r),
    supply: r.u64(),
    decimals: r.u8(),
    isInitialized: r.u8() === 1,
    freezeAuthority: readOptionKey(r),
  };
  r.end();
  return m;
}

export function encodeTokenAccount(a: TokenAccountRecord): Buffer {
  const w = new ByteWriter().pubkey(a.mint).pubkey(a.owner).u64(a.amount);
  optionKey(w, a.delegate);
  w.u8(a.state);
  w.u32(a.isNative === null ? 0 : 1).u64(a.isNative ?? 0n);
  w.u64(a.delegatedAmount);
  optionKey(w, a.closeAuthority);
  return w.done();
}

export function decodeTokenAccount(data: Buffer): TokenAccountRecord {
  const r = new ByteReader(data);
  const mint = r.pubkey();
  const owner = r.pubkey();
  const amount = r.u64();
  const delegate = readOptionKey(r);
  const state = r.u8();
  const nativeTag = r.u32();
  const nativeValue = r.u64();
  const a: TokenAccountRecord = {
    mint,
    owner,
    amount,
    delegate,
    state,
    isNative: nativeTag === 1 ? nativeValue : null,
    delegatedAmount: r.u64(),
    closeAuthority: readOptionKey(r),
  };
  r.end();
  return a;
}
