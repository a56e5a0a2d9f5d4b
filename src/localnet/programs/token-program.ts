import { PublicKey } from '@solana/web3.js';
import { TOKEN_PROGRAM_ID } from '../../chain/program-ids';
import { MINT_SIZE, TOKEN_ACCOUNT_SIZE } from '../../chain/spl-token-layouts';
import {
  AccountView,
  InstructionFailure,
  InvokeContext,
  NativeProgram,
} from '../runtime/native-program';
import { InstructionData } from './instruction-data';
import {
  checkAuthority,
  checkedAdd,
  checkUninitialized,
  readMint,
  readTokenAccount,
  TokenError,
  tokenFailure,
  writeMint,
  writeTokenAccount,
} from './token-state';

/**
 * SPL Token (Tokenkeg...), byte-compatible for the instructions the network uses: InitializeMint
 * (0) and InitializeMint2 (20), InitializeAccount (1, 16, 18), Transfer (3), MintTo (7), Burn (8),
 * CloseAccount (9), TransferChecked (12), MintToChecked (14), BurnChecked (15),
 * GetAccountDataSize (21) and InitializeImmutableOwner (22). Delegation, freezing, multisig and
 * native SOL accounts are not implemented: those instructions fail with `InvalidInstruction`.
 */
export class TokenProgram implements NativeProgram {
  readonly programId = TOKEN_PROGRAM_ID;

  process(ctx: InvokeContext): void {
    try {
      this.dispatch(ctx);
    } catch (err) {
      // SPL Token logs its error (`Program log: Error: insufficient funds`) before failing.
      if (err instanceof InstructionFailure && err.message) ctx.log(err.message);
      throw err;
    }
  }

  private dispatch(ctx: InvokeContext): void {
    const d = new InstructionData(ctx.data);
    const tag = ctx.data.length > 0 ? d.u8() : -1;
    const a = ctx.accounts;
    switch (tag) {
      case 0:
      case 20: {
        ctx.log(tag === 0 ? 'Instruction: InitializeMint' : 'Instruction: InitializeMint2');
        const decimals = d.u8();
        const mintAuthority = d.pubkey();
        const freezeAuthority = d.optionalPubkey();
        need(a, 1);
        checkUninitialized(a[0], MINT_SIZE, ctx.minimumBalance(MINT_SIZE));
        writeMint(a[0], {
          mintAuthority,
          supply: 0n,
          decimals,
          isInitialized: true,
          freezeAuthority,
        });
        return;
      }
      case 1:
        ctx.log('Instruction: InitializeAccount');
        need(a, 3);
        return this.initializeAccount(ctx, a[0], a[1], a[2].pubkey);
      case 16:
      case 18: {
        ctx.log(tag === 16 ? 'Instruction: InitializeAccount2' : 'Instruction: InitializeAccount3');
        const owner = d.pubkey();
        need(a, 2);
        return this.initializeAccount(ctx, a[0], a[1], owner);
      }
      case 3:
        ctx.log('Instruction: Transfer');
        need(a, 3);
        return this.transfer(a[0], a[1], a[2], d.u64(), null);
      case 12: {
        ctx.log('Instruction: TransferChecked');
        const amount = d.u64();
        const decimals = d.u8();
        need(a, 4);
        return this.transfer(a[0], a[2], a[3], amount, { mint: a[1], decimals });
      }
      case 7:
      case 14: {
        ctx.log(tag === 7 ? 'Instruction: MintTo' : 'Instruction: MintToChecked');
        const amount = d.u64();
        const decimals = tag === 14 ? d.u8() : null;
        need(a, 3);
        return this.mintTo(a[0], a[1], a[2], amount, decimals);
      }
      case 8:
      case 15: {
        ctx.log(tag === 8 ? 'Instruction: Burn' : 'Instruction: BurnChecked');
        const amount = d.u64();
        const decimals = tag === 15 ? d.u8() : null;
        need(a, 3);
        return this.burn(a[0], a[1], a[2], amount, decimals);
      }
      case 9:
        ctx.log('Instruction: CloseAccount');
        need(a, 3);
        return this.close(a[0], a[1], a[2]);
      case 21:
        ctx.log('Instruction: GetAccountDataSize');
        need(a, 1);
        readMint(a[0]);
        return;
      case 22:
        ctx.log('Instruction: InitializeImmutableOwner');
        need(a, 1);
        if (a[0].data.some((b) => b !== 0)) throw tokenFailure(TokenError.AlreadyInUse);
        ctx.log('Please upgrade to SPL Token 2022 for immutable owner support');
        return;
      default:
        throw tokenFailure(TokenError.InvalidInstruction);
    }
  }

  private initializeAccount(
    ctx: InvokeContext,
    account: AccountView,
    mintView: AccountView,
    owner: PublicKey,
  ): void {
    checkUninitialized(account, TOKEN_ACCOUNT_SIZE, ctx.minimumBalance(TOKEN_ACCOUNT_SIZE));
    readMint(mintView);
    writeTokenAccount(account, {
      mint: mintView.pubkey,
      owner,
      amount: 0n,
      delegate: null,
      state: 1,
      isNative: null,
      delegatedAmount: 0n,
      closeAuthority: null,
    });
  }

  private transfer(
    sourceView: AccountView,
    destView: AccountView,
    authority: AccountView,
    amount: bigint,
    checked: { mint: AccountView; decimals: number } | null,
  ): void {
    const source = readTokenAccount(sourceView);
    const dest = readTokenAccount(destView);
    if (!source.mint.equals(dest.mint)) throw tokenFailure(TokenError.MintMismatch);
    if (source.amount < amount) throw tokenFailure(TokenError.InsufficientFunds);
    if (checked) {
      if (!checked.mint.pubkey.equals(source.mint)) throw tokenFailure(TokenError.MintMismatch);
      const mint = readMint(checked.mint);
      if (mint.decimals !== checked.decimals) throw tokenFailure(TokenError.MintDecimalsMismatch);
    }
    checkAuthority(source.owner, authority);
    if (sourceView.pubkey.equals(destView.pubkey)) return;
    source.amount -= amount;
    dest.amount = checkedAdd(dest.amount, amount);
    writeTokenAccount(sourceView, source);
    writeTokenAccount(destView, dest);
  }

  private mintTo(
    mintView: AccountView,
    destView: AccountView,
    authority: AccountView,
    amount: bigint,
    decimals: number | null,
  ): void {
    const dest = readTokenAccount(destView);
    if (!dest.mint.equals(mintView.pubkey)) throw tokenFailure(TokenError.MintMismatch);
    const mint = readMint(mintView);
    if (decimals !== null && decimals !== mint.decimals) {
      throw tokenFailure(TokenError.MintDecimalsMismatch);
    }
    if (!mint.mintAuthority) throw tokenFailure(TokenError.FixedSupply);
    checkAuthority(mint.mintAuthority, authority);
    mint.supply = checkedAdd(mint.supply, amount);
    dest.amount = checkedAdd(dest.amount, amount);
    writeMint(mintView, mint);
    writeTokenAccount(destView, dest);
  }

  private burn(
    accountView: AccountView,
    mintView: AccountView,
    authority: AccountView,
    amount: bigint,
    decimals: number | null,
  ): void {
    const account = readTokenAccount(accountView);
    if (!account.mint.equals(mintView.pubkey)) throw tokenFailure(TokenError.MintMismatch);
    const mint = readMint(mintView);
    if (decimals !== null && decimals !== mint.decimals) {
      throw tokenFailure(TokenError.MintDecimalsMismatch);
    }
    if (account.amount < amount) throw tokenFailure(TokenError.InsufficientFunds);
    checkAuthority(account.owner, authority);
    account.amount -= amount;
    mint.supply -= amount;
    writeTokenAccount(accountView, account);
    writeMint(mintView, mint);
  }

  private close(accountView: AccountView, destView: AccountView, authority: AccountView): void {
    const account = readTokenAccount(accountView);
    if (account.amount !== 0n) throw tokenFailure(TokenError.NonNativeHasBalance);
    checkAuthority(account.closeAuthority ?? account.owner, authority);
    if (accountView.pubkey.equals(destView.pubkey)) {
      throw new InstructionFailure('InvalidAccountData', '');
    }
    destView.lamports += accountView.lamports;
    accountView.lamports = 0;
    accountView.data = Buffer.alloc(0);
  }
}

function need(accounts: AccountView[], count: number): void {
  if (accounts.length < count) throw new InstructionFailure('NotEnoughAccountKeys', '');
}
