import { PublicKey } from '@solana/web3.js';
import { SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../../src/chain/program-ids';
import { decodeTokenAccount, encodeTokenAccount } from '../../../src/chain/spl-token-layouts';
import { AccountView, InstructionFailure, InvokeContext, NativeProgram } from './native-program';

/** Minimal System program for the test ledger: CreateAccount, Assign, Transfer, Allocate. */
export class TestSystemProgram implements NativeProgram {
  readonly programId = SYSTEM_PROGRAM_ID;

  process(ctx: InvokeContext): void {
    const d = ctx.data;
    const index = d.readUInt32LE(0);
    const [a, b] = ctx.accounts;
    switch (index) {
      case 0: {
        const lamports = Number(d.readBigUInt64LE(4));
        requireSigners(a, b);
        if (b.lamports > 0 || !isEmptySystem(b))
          throw new InstructionFailure({ Custom: 0 }, 'in use');
        debit(a, lamports);
        b.lamports += lamports;
        b.data = Buffer.alloc(Number(d.readBigUInt64LE(12)));
        b.owner = new PublicKey(d.subarray(20, 52));
        return;
      }
      case 1:
        requireSigners(a);
        a.owner = new PublicKey(d.subarray(4, 36));
        return;
      case 2: {
        const lamports = Number(d.readBigUInt64LE(4));
        requireSigners(a);
        debit(a, lamports);
        b.lamports += lamports;
        return;
      }
      case 8:
        requireSigners(a);
        if (!isEmptySystem(a)) throw new InstructionFailure({ Custom: 0 }, 'in use');
        a.data = Buffer.alloc(Number(d.readBigUInt64LE(4)));
        return;
      default:
        throw new InstructionFailure('InvalidInstructionData', `system instruction ${index}`);
    }
  }
}

/** Minimal SPL Token program: Transfer (3) only, with the checks the real one makes. */
export class TestTokenProgram implements NativeProgram {
  readonly programId = TOKEN_PROGRAM_ID;

  process(ctx: InvokeContext): void {
    if (ctx.data[0] !== 3 || ctx.data.length !== 9) {
      throw new InstructionFailure('InvalidInstructionData', 'token instruction');
    }
    const amount = ctx.data.readBigUInt64LE(1);
    const [sourceView, destView, authority] = ctx.accounts;
    const source = decodeTokenAccount(sourceView.data);
    const dest = decodeTokenAccount(destView.data);
    if (!source.owner.equals(authority.pubkey))
      throw new InstructionFailure({ Custom: 4 }, 'owner');
    requireSigners(authority);
    if (!source.mint.equals(dest.mint)) throw new InstructionFailure({ Custom: 3 }, 'mint');
    if (source.state !== 1 || dest.state !== 1)
      throw new InstructionFailure({ Custom: 17 }, 'frozen');
    if (source.amount < amount) throw new InstructionFailure({ Custom: 1 }, 'insufficient funds');
    sourceView.data = encodeTokenAccount({ ...source, amount: source.amount - amount });
    const destNow = decodeTokenAccount(destView.data);
    destView.data = encodeTokenAccount({ ...destNow, amount: destNow.amount + amount });
  }
}

function requireSigners(...views: AccountView[]): void {
  for (const v of views) {
    if (!v.isSigner) throw new InstructionFailure('MissingRequiredSignature', v.pubkey.toBase58());
  }
}

function isEmptySystem(v: AccountView): boolean {
  return v.owner.equals(SYSTEM_PROGRAM_ID) && v.data.length === 0;
}

function debit(from: AccountView, lamports: number): void {
  if (!isEmptySystem(from)) throw new InstructionFailure('InvalidArgument', 'from carries data');
  if (from.lamports < lamports)
    throw new InstructionFailure({ Custom: 1 }, 'insufficient lamports');
  from.lamports -= lamports;
}
