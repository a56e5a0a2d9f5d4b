/**
 * The Solana CLI's `-u` monikers (`solana config set --url devnet`, `-ud`): a cluster name or
 * its first letter stands for that cluster's public RPC endpoint.
 */
export const RPC_MONIKERS: Readonly<Record<string, string>> = {
  localhost: 'http://127.0.0.1:8899',
  devnet: 'https://api.devnet.solana.com',
  testnet: 'https://api.testnet.solana.com',
  'mainnet-beta': 'https://api.mainnet-beta.solana.com',
};

const SHORT: Readonly<Record<string, string>> = {
  l: 'localhost',
  d: 'devnet',
  t: 'testnet',
  m: 'mainnet-beta',
};

/** A moniker's URL, or the text unchanged (a URL, checked by the caller). */
export function expandRpcMoniker(text: string): string {
  const name = SHORT[text] ?? text;
  return Object.hasOwn(RPC_MONIKERS, name) ? RPC_MONIKERS[name] : text;
}
