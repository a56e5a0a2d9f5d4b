import { Balances } from '../funding/wallet-funding';
import { formatSol, formatTokens } from '../output/units';

/** `10 SOL, 1000 storage tokens`; only SOL where the cluster has no storage token. */
export function balanceText(balance: Balances): string {
  const sol = `${formatSol(balance.lamports)} SOL`;
  return balance.tokens === null ? sol : `${sol}, ${formatTokens(balance.tokens)} storage tokens`;
}
