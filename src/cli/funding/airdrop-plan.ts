import { PublicKey } from '@solana/web3.js';
import { NetworkKind, notLocalError } from '../../chain/local-network';

/** Where `tape airdrop` gets SOL from, decided before any faucet request is sent. */
export type AirdropRoute =
  /** The local network's faucets: SOL and storage tokens. */
  | { kind: 'local-faucet' }
  /** devnet's or testnet's own faucet (`requestAirdrop`): SOL only. */
  | { kind: 'cluster-faucet'; cluster: 'devnet' | 'testnet' }
  | { kind: 'refused'; message: string };

/**
 * The local network has both faucets; devnet and testnet have a SOL faucet; mainnet-beta has
 * none, and a node that is none of these is never asked (it may be mainnet behind a proxy).
 */
export function airdropRoute(rpcUrl: string, network: NetworkKind): AirdropRoute {
  if (network.local) return { kind: 'local-faucet' };
  switch (network.cluster) {
    case 'devnet':
    case 'testnet':
      return { kind: 'cluster-faucet', cluster: network.cluster };
    case 'mainnet-beta':
      return {
        kind: 'refused',
        message:
          `mainnet-beta has no faucet (${rpcUrl}): send SOL to the wallet from one that holds some ` +
          "(tape network fund <pubkey> --sol <n>); storage tokens come from the network's operator (tape network mint)",
      };
    case undefined:
      return { kind: 'refused', message: notLocalError(rpcUrl, network.reason).message };
  }
}

/** The storage-token mint of the program on this cluster, as far as it could be read. */
export type MintFacts =
  | { kind: 'mint'; address: PublicKey; authority: PublicKey | null }
  | { kind: 'missing'; reason: string };

/** Storage tokens on a cluster: minted only by a wallet that holds the mint authority. */
export type TokenGrant = { kind: 'mint'; mint: PublicKey } | { kind: 'none'; reason: string };

export function tokenGrant(wallet: PublicKey, facts: MintFacts): TokenGrant {
  if (facts.kind === 'missing') return { kind: 'none', reason: facts.reason };
  if (facts.authority?.equals(wallet)) return { kind: 'mint', mint: facts.address };
  const who = facts.authority
    ? `its mint authority is ${facts.authority.toBase58()}`
    : 'it has no mint authority';
  return {
    kind: 'none',
    reason:
      `the wallet cannot mint the storage token ${facts.address.toBase58()} (${who}); ` +
      `the network's operator can send some: tape network mint ${wallet.toBase58()} <amount>`,
  };
}
