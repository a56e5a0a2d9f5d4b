import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from '../../chain/program-ids';
import { decodeTokenAccount, TOKEN_ACCOUNT_SIZE } from '../../chain/spl-token-layouts';
import {
  AccountView,
  CpiAccount,
  InstructionFailure,
  InvokeContext,
  NativeProgram,
} from '../runtime/native-program';
import { ProgramAddressCache } from './program-address-cache';
import { TapeSeeds } from './tape-seeds';

/** `AssociatedTokenAccountError::InvalidOwner`. */
const INVALID_OWNER = 0;

/**
 * SPL Associated Token Account program: Create (empty data or 0) and CreateIdempotent (1).
 * Accounts: payer (s, w), associated account (w), wallet, mint, System program, Token program.
 * Creates the PDA `[wallet, Token program, mint]` through the System program (signed with its
 * seeds) and initialises it through the Token program, both as CPIs, like the real program.
 */
export class AssociatedTokenProgram implements NativeProgram {
  readonly programId = ASSOCIATED_TOKEN_PROGRAM_ID;
  private readonly addresses = new ProgramAddressCache(ASSOCIATED_TOKEN_PROGRAM_ID);

  process(ctx: InvokeContext): void {
    const mode = ctx.data.length === 0 ? 0 : ctx.data[0];
    if (mode !== 0 && mode !== 1) throw new InstructionFailure('InvalidInstructionData', '');
    ctx.log(mode === 0 ? 'Create' : 'CreateIdempotent');
    if (ctx.accounts.length < 6) throw new InstructionFailure('NotEnoughAccountKeys', '');
    const [payer, ata, wallet, mint, , tokenProgram] = ctx.accounts;
    if (!tokenProgram.pubkey.equals(TOKEN_PROGRAM_ID)) {
      throw new InstructionFailure('IncorrectProgramId', '');
    }
    const seeds = TapeSeeds.associatedToken(wallet.pubkey, mint.pubkey);
    const { address, bump } = this.addresses.find(seeds);
    if (!address.equals(ata.pubkey)) {
      ctx.log('Error: Associated address does not match seed derivation');
      throw new InstructionFailure('InvalidSeeds', '');
    }
    if (mode === 1 && ata.owner.equals(TOKEN_PROGRAM_ID) && this.existing(ctx, ata, wallet, mint)) {
      return;
    }
    if (!ata.owner.equals(SYSTEM_PROGRAM_ID)) throw new InstructionFailure('IllegalOwner', '');
    const signerSeeds = [...seeds, Buffer.from([bump])];
    this.createAccount(ctx, payer, ata, signerSeeds);
    ctx.log('Initialize the associated token account');
    const meta = (v: AccountView, isWritable: boolean): CpiAccount => ({
      pubkey: v.pubkey,
      isSigner: false,
      isWritable,
    });
    ctx.invoke(TOKEN_PROGRAM_ID, [meta(ata, true)], Buffer.from([22]));
    const init = Buffer.concat([Buffer.from([18]), wallet.pubkey.toBuffer()]);
    ctx.invoke(TOKEN_PROGRAM_ID, [meta(ata, true), meta(mint, false)], init);
  }

  /** CreateIdempotent on an existing account: fine if it is the wallet's account of this mint. */
  private existing(
    ctx: InvokeContext,
    ata: AccountView,
    wallet: AccountView,
    mint: AccountView,
  ): boolean {
    if (ata.data.length !== TOKEN_ACCOUNT_SIZE) return false;
    const account = decodeTokenAccount(ata.data);
    if (account.state === 0) return false;
    if (!account.owner.equals(wallet.pubkey)) {
      ctx.log('Error: Associated token account owner does not match address derivation');
      throw new InstructionFailure({ Custom: INVALID_OWNER }, '');
    }
    if (!account.mint.equals(mint.pubkey)) throw new InstructionFailure('InvalidAccountData', '');
    return true;
  }

  /** Like `create_pda_account`: top up, allocate and assign when someone pre-funded the address. */
  private createAccount(
    ctx: InvokeContext,
    payer: AccountView,
    ata: AccountView,
    signerSeeds: Buffer[],
  ): void {
    const rent = Math.max(1, ctx.minimumBalance(TOKEN_ACCOUNT_SIZE));
    const payerMeta = { pubkey: payer.pubkey, isSigner: true, isWritable: true };
    const ataMeta = { pubkey: ata.pubkey, isSigner: true, isWritable: true };
    const system = (tag: number, ...fields: Buffer[]): Buffer => {
      const head = Buffer.alloc(4);
      head.writeUInt32LE(tag);
      return Buffer.concat([head, ...fields]);
    };
    if (ata.lamports > 0) {
      const topUp = rent - ata.lamports;
      if (topUp > 0) {
        ctx.invoke(
          SYSTEM_PROGRAM_ID,
          [payerMeta, { ...ataMeta, isSigner: false }],
          system(2, u64(topUp)),
        );
      }
      ctx.invokeSigned(SYSTEM_PROGRAM_ID, [ataMeta], system(8, u64(TOKEN_ACCOUNT_SIZE)), [
        signerSeeds,
      ]);
      ctx.invokeSigned(SYSTEM_PROGRAM_ID, [ataMeta], system(1, TOKEN_PROGRAM_ID.toBuffer()), [
        signerSeeds,
      ]);
      return;
    }
    const data = system(0, u64(rent), u64(TOKEN_ACCOUNT_SIZE), TOKEN_PROGRAM_ID.toBuffer());
    ctx.invokeSigned(SYSTEM_PROGRAM_ID, [payerMeta, ataMeta], data, [signerSeeds]);
  }
}

function u64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
}
