import { ChainError, toChainError } from './chain-error';

/** Genesis hashes of Solana's public clusters: never local, whatever their URL. */
export const PUBLIC_CLUSTER_GENESIS: Readonly<Record<string, string>> = {
  '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d': 'mainnet-beta',
  EtWTRABZaYq6iMfeYKouRu166VL2xqa1wcaSToNPCuqx: 'devnet',
  '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY': 'testnet',
};

/** Hosts of Solana's public RPC endpoints: refused before any request is made. */
const PUBLIC_RPC_HOSTS = new Set([
  'api.mainnet-beta.solana.com',
  'api.devnet.solana.com',
  'api.testnet.solana.com',
]);

/** JSON-RPC "invalid params": what the local network answers a faucet call with no arguments. */
const INVALID_PARAMS = -32602;

/** A public cluster by name: what its faucet (if any) and its explorers call it. */
export type PublicCluster = 'mainnet-beta' | 'devnet' | 'testnet';

/** `cluster` names the public cluster when the URL or the genesis hash says which one it is. */
export type NetworkKind =
  { local: true } | { local: false; reason: string; cluster?: PublicCluster };

/**
 * Decides whether `rpcUrl` is the project's local network, before any faucet request is sent
 * (the faucets must never be asked on a public cluster). The rule, in order:
 *
 * 1. a public RPC host (api.{mainnet-beta,devnet,testnet}.solana.com) is not local; nothing is sent;
 * 2. `getGenesisHash` naming mainnet-beta, devnet or testnet is not local; nothing more is sent;
 * 3. otherwise the node must answer `tape_requestStorageTokens` called with no arguments with
 *    JSON-RPC "invalid params" (-32602): only the local network has that method, and a call
 *    without an owner and an amount cannot grant anything. Any other answer (-32601 "method
 *    not found" on every other Solana node, an HTML page, a proxy error) is not local.
 */
export async function probeLocalNetwork(
  rpcUrl: string,
  post: (body: unknown) => Promise<unknown> = (body) => postJson(rpcUrl, body),
): Promise<NetworkKind> {
  const host = new URL(rpcUrl).hostname;
  if (PUBLIC_RPC_HOSTS.has(host)) {
    const cluster = /^api\.(.+)\.solana\.com$/.exec(host)![1] as PublicCluster;
    return { local: false, reason: `${host} is a public cluster`, cluster };
  }
  const genesis = rpcResult(await post(request('getGenesisHash', [])));
  if (typeof genesis === 'string' && PUBLIC_CLUSTER_GENESIS[genesis]) {
    const cluster = PUBLIC_CLUSTER_GENESIS[genesis] as PublicCluster;
    return { local: false, reason: `its genesis hash is ${cluster}'s`, cluster };
  }
  const reply = await post(request('tape_requestStorageTokens', []));
  const code = (reply as { error?: { code?: unknown } } | null)?.error?.code;
  if (code === INVALID_PARAMS) return { local: true };
  return { local: false, reason: 'it has no local-network faucet' };
}

function request(method: string, params: unknown[]) {
  return { jsonrpc: '2.0', id: 1, method, params };
}

function rpcResult(reply: unknown): unknown {
  return (reply as { result?: unknown } | null)?.result;
}

async function postJson(rpcUrl: string, body: unknown): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (err) {
    throw toChainError(err, rpcUrl);
  }
  try {
    return await res.json();
  } catch {
    // Not JSON: a web page or a proxy error, not a Solana node.
    return null;
  }
}

/** The one line a faucet command fails with on any other network. */
export function notLocalError(rpcUrl: string, reason: string): ChainError {
  return new ChainError(
    'rpc',
    `the faucet exists only on a local network; ${rpcUrl} is not one (${reason})`,
  );
}
