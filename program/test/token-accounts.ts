import { PublicKey } from '@solana/web3.js';
import { TOKEN_PROGRAM_ID } from '../../src/chain/program-ids';
import { encodeTokenAccount, TOKEN_ACCOUNT_SIZE } from '../../src/chain/spl-token-layouts';
import { rentExempt } from './oracle/test-ledger';

/** A rent-exempt SPL token account of `mint` owned by `owner` (state 1: initialized). */
export function tokenAccount(mint: PublicKey, owner: PublicKey, amount: bigint, state = 1) {
  return {
    lamports: rentExempt(TOKEN_ACCOUNT_SIZE),
    owner: TOKEN_PROGRAM_ID,
    data: encodeTokenAccount({
      mint,
      owner,
      amount,
      delegate: null,
      state,
      isNative: null,
      delegatedAmount: 0n,
      closeAuthority: null,
    }),
  };
}
