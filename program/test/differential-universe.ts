import { PublicKey } from '@solana/web3.js';
import { createHash } from 'node:crypto';
import { associatedTokenAddress, TapePdas } from '../../src/chain/pdas';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../src/chain/program-ids';
import { base58 } from './key-cache';

const key = (label: string): PublicKey =>
  new PublicKey(createHash('sha256').update(`differential:${label}`).digest());

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
  }

  /** Every address a sequence may touch (accounts to swap in, lamports to send to). */
  readonly all: PublicKey[] = [];

  label(address: PublicKey): string {
    return this.labels.get(base58(address)) ?? base58(address);
  }
}
