import { PublicKey } from '@solana/web3.js';
import { createHash } from 'node:crypto';
import { associatedTokenAddress, TapePdas } from '../../src/chain/pdas';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../src/chain/program-ids';
import { base58 } from './key-cache';

const key = (label: string): PublicKey =>
  new PublicKey(createHash('sha256').update(`differential:${label}`).digest());

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

/**
 * Names as raw bytes: valid UTF-8 of every width, the length limits, invalid sequences, and
 * hidden names (a segment starting with "."), which the program refuses but a starting state may
 * hold (written by a build from before the rule) and RemoveName must still take away.
 */
export const NAMES: Buffer[] = [
  utf8('index.html'),
  utf8('a'),
  utf8('dir/page-é.html'),
  utf8('日本語/😀.txt'),
  utf8('x'.repeat(1024)),
  utf8('é'.repeat(512)),
  utf8('x'.repeat(1025)),
  Buffer.alloc(0),
  Buffer.from([0xff, 0xfe]),
  Buffer.from([0x61, 0xc3]), // truncated two-byte sequence
  Buffer.from([0xc0, 0xaf]), // overlong '/'
  Buffer.from([0xed, 0xa0, 0x80]), // a UTF-16 surrogate
  Buffer.from([0xf4, 0x90, 0x80, 0x80]), // past U+10FFFF
  Buffer.from([0xef, 0xbf, 0xbf]), // U+FFFF: a noncharacter, still valid UTF-8
  utf8('.env'),
  utf8('.well-known/acme-challenge/x'),
  utf8('a/.git/config'),
  utf8('a./b.c'), // dots inside segments: visible
];

/** Indexes in NAMES of the names a starting state may hold: valid UTF-8 of 1..1024 bytes. */
export const STORABLE_NAMES = new Set([0, 1, 2, 3, 4, 5, 14, 15, 16, 17]);

/** Content types as raw bytes; the 256-byte one cannot be expressed in a u8-prefixed string. */
export const CONTENT_TYPES: Buffer[] = [
  Buffer.alloc(0),
  utf8('text/plain'),
  utf8('text/html; charset=utf-8'),
  utf8('é'.repeat(100)),
  utf8('t'.repeat(255)),
  utf8('t'.repeat(256)),
  Buffer.from([0x74, 0xff]),
];

export const COMMITMENT_COUNT = 4;
export const TAPE_COUNT = 3;

/**
 * The fixed cast of the differential test: keys, their PDAs (derived once, reused by every
 * sequence: each sequence starts from a reset host) and a label per address for reports.
 */
export class Universe {
  readonly pdas = new TapePdas(DEFAULT_TAPE_PROGRAM_ID);
  readonly admin = key('admin');
  readonly storageAuthority = key('storage-authority');
  readonly mint = key('mint');
  readonly otherMint = key('other-mint');
  readonly treasury = key('treasury');
  readonly stranger = key('stranger');
  /** Not a PDA: where a starting state may put a copy of a real record. */
  readonly forged = key('forged');
  readonly payers = [0, 1, 2].map((i) => key(`payer-${i}`));
  readonly atas = this.payers.map((p) => associatedTokenAddress(p, this.mint));
  readonly authorities = [0, 1, 2].map((i) => key(`authority-${i}`));
  readonly delegates = [0, 1].map((i) => key(`delegate-${i}`));
  readonly config = this.pdas.config();
  readonly tapes = this.authorities.map((a) => this.pdas.tape(a));
  readonly commitments = Array.from({ length: COMMITMENT_COUNT }, (_, i) =>
    createHash('sha256').update(`body-${i}`).digest(),
  );
  /** tracks[tape][commitment] */
  readonly tracks = this.tapes.map((t) => this.commitments.map((c) => this.pdas.track(t, c)));
  /** names[tape][name], derived from the raw bytes as a client would. */
  readonly names = this.tapes.map((t) => NAMES.map((n) => namePda(this.pdas.programId, t, n)));
  readonly labels = new Map<string, string>();

  constructor() {
    const label = (address: PublicKey, name: string) => {
      this.labels.set(address.toBase58(), name);
      this.all.push(address);
    };
    for (const [name, address] of Object.entries({
      admin: this.admin,
      storageAuthority: this.storageAuthority,
      mint: this.mint,
      otherMint: this.otherMint,
      treasury: this.treasury,
      stranger: this.stranger,
      forged: this.forged,
      config: this.config,
    })) {
      label(address, name);
    }
    this.payers.forEach((k, i) => label(k, `payer${i}`));
    this.atas.forEach((k, i) => label(k, `ata${i}`));
    this.authorities.forEach((k, i) => label(k, `authority${i}`));
    this.delegates.forEach((k, i) => label(k, `delegate${i}`));
    this.tapes.forEach((k, i) => label(k, `tape${i}`));
    this.tracks.forEach((row, t) => row.forEach((k, c) => label(k, `track${t}.${c}`)));
    this.names.forEach((row, t) => row.forEach((k, n) => label(k, `name${t}.${n}`)));
  }

  /** Every address a sequence may touch (accounts to swap in, lamports to send to). */
  readonly all: PublicKey[] = [];

  label(address: PublicKey): string {
    return this.labels.get(base58(address)) ?? base58(address);
  }
}

function namePda(programId: PublicKey, tape: PublicKey, name: Buffer): PublicKey {
  const seed = createHash('sha256').update(name).digest();
  return PublicKey.findProgramAddressSync(
    [Buffer.from('name'), tape.toBuffer(), seed],
    programId,
  )[0];
}
