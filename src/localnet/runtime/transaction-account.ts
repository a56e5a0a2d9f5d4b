import { PublicKey } from '@solana/web3.js';
import { StoredAccount } from '../ledger/ledger-store';
import { AccountView } from './native-program';
import { RENT_EXEMPT_EPOCH } from '../transactions/rent';

/**
 * An account loaded for one transaction: the transaction's private, mutable copy (the
 * copy-on-write overlay over the ledger). Programs see it through `AccountHandle`s; the ledger
 * sees it again only if the whole transaction succeeds.
 */
export class TransactionAccount {
  lamports: number;
  owner: PublicKey;
  data: Buffer;
  readonly executable: boolean;
  readonly rentEpoch: bigint;

  constructor(
    readonly pubkey: PublicKey,
    readonly keyBytes: Buffer,
    readonly original: StoredAccount | null,
    owner: PublicKey,
  ) {
    this.lamports = original?.lamports ?? 0;
    this.owner = owner;
    this.data = original ? Buffer.from(original.data) : Buffer.alloc(0);
    this.executable = original?.executable ?? false;
    this.rentEpoch = original?.rentEpoch ?? RENT_EXEMPT_EPOCH;
  }

  /** True when the transaction changed anything the ledger stores. */
  changed(): boolean {
    const o = this.original;
    if (!o) return this.lamports !== 0 || this.data.length > 0;
    return (
      o.lamports !== this.lamports ||
      !o.owner.equals(this.owner.toBuffer()) ||
      !o.data.equals(this.data)
    );
  }

  toStored(): StoredAccount {
    return {
      lamports: this.lamports,
      owner: this.owner.toBuffer(),
      executable: this.executable,
      rentEpoch: this.rentEpoch,
      data: this.data,
    };
  }
}

/** One program's view of an account: the shared account with this call's privileges. */
export class AccountHandle implements AccountView {
  constructor(
    readonly account: TransactionAccount,
    readonly isSigner: boolean,
    readonly isWritable: boolean,
  ) {}

  get pubkey(): PublicKey {
    return this.account.pubkey;
  }
  get lamports(): number {
    return this.account.lamports;
  }
  set lamports(value: number) {
    this.account.lamports = value;
  }
  get owner(): PublicKey {
    return this.account.owner;
  }
  set owner(value: PublicKey) {
    this.account.owner = value;
  }
  get data(): Buffer {
    return this.account.data;
  }
  set data(value: Buffer) {
    this.account.data = value;
  }
  get executable(): boolean {
    return this.account.executable;
  }
}
