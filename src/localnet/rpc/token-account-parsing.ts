import { PublicKey } from '@solana/web3.js';
import { TOKEN_PROGRAM_ID } from '../../chain/program-ids';
import {
  decodeMint,
  decodeTokenAccount,
  MINT_SIZE,
  TOKEN_ACCOUNT_SIZE,
} from '../../chain/spl-token-layouts';
import { StoredAccount } from '../ledger/ledger-store';

/** Solana's `UiTokenAmount`: the raw amount as a string plus its decimal renderings. */
export function uiTokenAmount(amount: bigint, decimals: number): Record<string, unknown> {
  const text = amount.toString().padStart(decimals + 1, '0');
  const whole = text.slice(0, text.length - decimals);
  const fraction = text.slice(text.length - decimals).replace(/0+$/, '');
  const uiAmountString = fraction ? `${whole}.${fraction}` : whole;
  return {
    amount: amount.toString(),
    decimals,
    uiAmount: Number(uiAmountString),
    uiAmountString,
  };
}

const STATES = ['uninitialized', 'initialized', 'frozen'];

/** `jsonParsed` for SPL Token mints and accounts; null for anything else (base64 fallback). */
export function parseTokenProgramAccount(
  account: StoredAccount,
  mintDecimals: (mint: PublicKey) => number | null,
): Record<string, unknown> | null {
  if (!account.owner.equals(TOKEN_PROGRAM_ID.toBuffer())) return null;
  try {
    if (account.data.length === MINT_SIZE) {
      const m = decodeMint(account.data);
      if (!m.isInitialized) return null;
      return wrap('mint', {
        decimals: m.decimals,
        freezeAuthority: m.freezeAuthority?.toBase58() ?? null,
        isInitialized: true,
        mintAuthority: m.mintAuthority?.toBase58() ?? null,
        supply: m.supply.toString(),
      });
    }
    if (account.data.length === TOKEN_ACCOUNT_SIZE) {
      const a = decodeTokenAccount(account.data);
      const decimals = mintDecimals(a.mint);
      if (a.state === 0 || decimals === null) return null;
      return wrap('account', {
        isNative: a.isNative !== null,
        mint: a.mint.toBase58(),
        owner: a.owner.toBase58(),
        state: STATES[a.state] ?? 'initialized',
        tokenAmount: uiTokenAmount(a.amount, decimals),
      });
    }
  } catch {
    return null;
  }
  return null;
}

function wrap(type: string, info: Record<string, unknown>): Record<string, unknown> {
  return {
    program: 'spl-token',
    parsed: { info, type },
    space: type === 'mint' ? MINT_SIZE : TOKEN_ACCOUNT_SIZE,
  };
}
