import { PublicKey } from '@solana/web3.js';
import { ChainReader } from '../../chain/chain-reader';
import { CliError } from '../cli-error';
import { formatSol, formatSolApprox, formatTokens } from '../output/units';

/** Checked before signing: the wallet holds the storage tokens and the SOL an action needs. */
export async function assertWalletCanPay(
  chain: ChainReader,
  wallet: PublicKey,
  tokens: bigint,
  lamports: number,
  what: string,
): Promise<void> {
  const balance = await chain.getBalances(wallet);
  if (balance.tokens >= tokens && balance.lamports >= lamports) return;
  const needs =
    tokens > 0n
      ? `${formatTokens(tokens)} storage tokens and about ${formatSolApprox(lamports)} SOL`
      : `about ${formatSolApprox(lamports)} SOL`;
  const has =
    tokens > 0n
      ? `${formatTokens(balance.tokens)} storage tokens and ${formatSol(balance.lamports)} SOL`
      : `${formatSol(balance.lamports)} SOL`;
  throw new CliError(
    `insufficient funds: ${what} costs ${needs}; wallet ${wallet.toBase58()} has ${has} ` +
      '(fix: fund the wallet, e.g. tape airdrop on a local network)',
  );
}
