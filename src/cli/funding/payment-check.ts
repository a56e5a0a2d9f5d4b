import { PublicKey } from '@solana/web3.js';
import { ChainReader } from '../../chain/chain-reader';
import { CliError } from '../cli-error';
import { formatSol, formatSolApprox, formatTokens } from '../output/units';

/** Storage tokens (base units) and lamports: what an action costs, or what a wallet holds. */
export interface Funds {
  tokens: bigint;
  lamports: number;
}

export function covers(balance: Funds, cost: Funds): boolean {
  return balance.tokens >= cost.tokens && balance.lamports >= cost.lamports;
}

export interface ShortfallWording {
  /** Name storage tokens even when the action costs none (a tape's price is always in them). */
  alwaysTokens?: boolean;
  /** Appended to the fix: `, or reserve less`. */
  alternative?: string;
}

/** `insufficient funds: <what> costs …; wallet … has … (fix: …)`: one line, before anything is signed. */
export function insufficientFunds(
  what: string,
  wallet: PublicKey,
  cost: Funds,
  balance: Funds,
  wording: ShortfallWording = {},
): CliError {
  const tokens = wording.alwaysTokens === true || cost.tokens > 0n;
  const needs = tokens
    ? `${formatTokens(cost.tokens)} storage tokens and about ${formatSolApprox(cost.lamports)} SOL`
    : `about ${formatSolApprox(cost.lamports)} SOL`;
  const has = tokens
    ? `${formatTokens(balance.tokens)} storage tokens and ${formatSol(balance.lamports)} SOL`
    : `${formatSol(balance.lamports)} SOL`;
  return new CliError(
    `insufficient funds: ${what} costs ${needs}; wallet ${wallet.toBase58()} has ${has} ` +
      `(fix: fund the wallet, e.g. tape airdrop on a local network${wording.alternative ?? ''})`,
  );
}

/** Checked before signing: the wallet holds the storage tokens and the SOL an action needs. */
export async function assertWalletCanPay(
  chain: Pick<ChainReader, 'getBalances'>,
  wallet: PublicKey,
  tokens: bigint,
  lamports: number,
  what: string,
): Promise<void> {
  const balance = await chain.getBalances(wallet);
  const cost = { tokens, lamports };
  if (!covers(balance, cost)) throw insufficientFunds(what, wallet, cost, balance);
}
