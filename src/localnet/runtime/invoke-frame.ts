import { PublicKey } from '@solana/web3.js';
import { InstructionErrorKind, InstructionFailure } from './native-program';
import { MAX_ACCOUNT_DATA_LENGTH } from '../transactions/rent';
import { AccountHandle, TransactionAccount } from './transaction-account';

interface Privileges {
  signer: boolean;
  writable: boolean;
}

interface Snapshot {
  lamports: number;
  owner: PublicKey;
  data: Buffer;
}

/**
 * One program invocation (top level or CPI) and the accounts it was given. It remembers their
 * state when the program got control (and again after each CPI returns, since the callee's
 * changes were checked against the callee), and enforces Solana's account rules on what the
 * program itself changed:
 * - owner: only the owner, on a writable, non-executable account whose data is all zeros;
 * - lamports: read-only accounts never change; only the owner may debit;
 * - data: only the owner, only if writable; at most 10 MiB;
 * - the lamport sum of the accounts is the same at the end (and before every CPI).
 */
export class InvokeFrame {
  private readonly privileges = new Map<TransactionAccount, Privileges>();
  private readonly baseline = new Map<TransactionAccount, Snapshot>();
  private readonly startSum: number;

  constructor(
    readonly programId: PublicKey,
    readonly depth: number,
    handles: AccountHandle[],
  ) {
    for (const h of handles) {
      const p = this.privileges.get(h.account);
      if (p) {
        p.signer ||= h.isSigner;
        p.writable ||= h.isWritable;
      } else {
        this.privileges.set(h.account, { signer: h.isSigner, writable: h.isWritable });
      }
    }
    this.rebaseline();
    this.startSum = this.lamportSum();
  }

  /** The account with this key among the frame's accounts, with the frame's merged privileges. */
  find(pubkey: PublicKey): { account: TransactionAccount; privileges: Privileges } | undefined {
    for (const [account, privileges] of this.privileges) {
      if (account.pubkey.equals(pubkey)) return { account, privileges };
    }
    return undefined;
  }

  /** Checks what the program changed since the baseline; throws the rule it broke. */
  verify(): void {
    for (const [account, privileges] of this.privileges) {
      const pre = this.baseline.get(account) as Snapshot;
      this.verifyAccount(account, privileges, pre);
    }
    if (this.lamportSum() !== this.startSum) {
      throw new InstructionFailure('UnbalancedInstruction', '');
    }
  }

  /** After a CPI: the callee's changes are checked; the caller is judged from here on. */
  rebaseline(): void {
    for (const account of this.privileges.keys()) {
      this.baseline.set(account, {
        lamports: account.lamports,
        owner: account.owner,
        data: Buffer.from(account.data),
      });
    }
  }

  private verifyAccount(account: TransactionAccount, p: Privileges, pre: Snapshot): void {
    const fail = (kind: InstructionErrorKind): never => {
      throw new InstructionFailure(kind, '');
    };
    if (!Number.isSafeInteger(account.lamports) || account.lamports < 0) fail('ArithmeticOverflow');
    if (!(account.owner instanceof PublicKey)) fail('ModifiedProgramId');
    if (!Buffer.isBuffer(account.data)) fail('InvalidAccountData');
    const isOwner = pre.owner.equals(this.programId);
    if (!account.owner.equals(pre.owner)) {
      if (!p.writable || account.executable || !isOwner || !isZeroed(account.data)) {
        fail('ModifiedProgramId');
      }
    }
    if (account.lamports !== pre.lamports) {
      if (account.executable) fail('ExecutableLamportChange');
      if (!p.writable) fail('ReadonlyLamportChange');
      if (account.lamports < pre.lamports && !isOwner) fail('ExternalAccountLamportSpend');
    }
    if (!account.data.equals(pre.data)) {
      if (account.executable) fail('ExecutableDataModified');
      if (!p.writable) fail('ReadonlyDataModified');
      if (!isOwner) {
        fail(
          account.data.length === pre.data.length
            ? 'ExternalAccountDataModified'
            : 'AccountDataSizeChanged',
        );
      }
      if (account.data.length > MAX_ACCOUNT_DATA_LENGTH) fail('InvalidRealloc');
    }
  }

  private lamportSum(): number {
    let sum = 0;
    for (const account of this.privileges.keys()) sum += account.lamports;
    return sum;
  }
}

function isZeroed(data: Buffer): boolean {
  for (let i = 0; i < data.length; i++) if (data[i] !== 0) return false;
  return true;
}
