import { PublicKey } from '@solana/web3.js';
import { SYSTEM_PROGRAM_ID } from '../../chain/program-ids';
import {
  AccountView,
  InstructionFailure,
  InvokeContext,
  NativeProgram,
} from '../runtime/native-program';
import { MAX_ACCOUNT_DATA_LENGTH } from '../transactions/rent';
import { InstructionData } from './instruction-data';

/** `SystemError` codes (Custom errors of the System program). */
const ACCOUNT_ALREADY_IN_USE = 0;
const RESULT_WITH_NEGATIVE_LAMPORTS = 1;
const INVALID_ACCOUNT_DATA_LENGTH = 3;

/**
 * Solana's System program for what the local network needs: CreateAccount (0), Assign (1),
 * Transfer (2) and Allocate (8), with bincode layouts (u32 discriminant, u64 little-endian
 * amounts, 32-byte owner) and the same checks, errors and log lines as the real program.
 */
export class SystemProgram implements NativeProgram {
  readonly programId = SYSTEM_PROGRAM_ID;

  process(ctx: InvokeContext): void {
    const d = new InstructionData(ctx.data);
    const discriminant = d.u32();
    const a = ctx.accounts;
    switch (discriminant) {
      case 0: {
        const lamports = d.u64();
        const space = d.u64();
        const owner = d.pubkey();
        need(a, 2);
        this.createAccount(ctx, a[0], a[1], lamports, space, owner);
        return;
      }
      case 1: {
        const owner = d.pubkey();
        need(a, 1);
        this.assign(ctx, a[0], owner);
        return;
      }
      case 2: {
        const lamports = d.u64();
        need(a, 2);
        this.transfer(ctx, a[0], a[1], lamports);
        return;
      }
      case 8: {
        const space = d.u64();
        need(a, 1);
        this.allocate(ctx, a[0], space);
        return;
      }
      default:
        throw new InstructionFailure('InvalidInstructionData', '');
    }
  }

  private createAccount(
    ctx: InvokeContext,
    from: AccountView,
    to: AccountView,
    lamports: bigint,
    space: bigint,
    owner: PublicKey,
  ): void {
    if (to.lamports > 0) {
      ctx.log(`Create Account: account ${describe(to)} already in use`);
      throw new InstructionFailure({ Custom: ACCOUNT_ALREADY_IN_USE }, '');
    }
    this.allocate(ctx, to, space);
    this.assign(ctx, to, owner);
    this.transfer(ctx, from, to, lamports);
  }

  private allocate(ctx: InvokeContext, account: AccountView, space: bigint): void {
    if (!account.isSigner) {
      ctx.log(`Allocate: 'to' account ${describe(account)} must sign`);
      throw new InstructionFailure('MissingRequiredSignature', '');
    }
    if (account.data.length > 0 || !account.owner.equals(SYSTEM_PROGRAM_ID)) {
      ctx.log(`Allocate: account ${describe(account)} already in use`);
      throw new InstructionFailure({ Custom: ACCOUNT_ALREADY_IN_USE }, '');
    }
    if (space > BigInt(MAX_ACCOUNT_DATA_LENGTH)) {
      ctx.log(`Allocate: requested ${space}, max allowed ${MAX_ACCOUNT_DATA_LENGTH}`);
      throw new InstructionFailure({ Custom: INVALID_ACCOUNT_DATA_LENGTH }, '');
    }
    account.data = Buffer.alloc(Number(space));
  }

  private assign(ctx: InvokeContext, account: AccountView, owner: PublicKey): void {
    if (account.owner.equals(owner)) return;
    if (!account.isSigner) {
      ctx.log(`Assign: account ${account.pubkey.toBase58()} must sign`);
      throw new InstructionFailure('MissingRequiredSignature', '');
    }
    account.owner = owner;
  }

  private transfer(ctx: InvokeContext, from: AccountView, to: AccountView, lamports: bigint): void {
    if (!from.isSigner) {
      ctx.log(`Transfer: \`from\` account ${from.pubkey.toBase58()} must sign`);
      throw new InstructionFailure('MissingRequiredSignature', '');
    }
    if (from.data.length > 0) {
      ctx.log('Transfer: `from` must not carry data');
      throw new InstructionFailure('InvalidArgument', '');
    }
    if (lamports > BigInt(from.lamports)) {
      ctx.log(`Transfer: insufficient lamports ${from.lamports}, need ${lamports}`);
      throw new InstructionFailure({ Custom: RESULT_WITH_NEGATIVE_LAMPORTS }, '');
    }
    const amount = Number(lamports);
    from.lamports -= amount;
    to.lamports += amount;
  }
}

function need(accounts: AccountView[], count: number): void {
  if (accounts.length < count) throw new InstructionFailure('NotEnoughAccountKeys', '');
}

function describe(account: AccountView): string {
  return `Address { address: ${account.pubkey.toBase58()}, base: None }`;
}
