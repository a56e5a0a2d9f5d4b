import { Bank } from '../bank/bank';
import { Faucet } from '../faucet';
import { FaucetRateLimit } from '../faucet-rate-limit';
import { LedgerStore } from '../ledger/ledger-store';
import { SignatureVerifier } from '../transactions/signature-verifier';
import { AccountMethods } from './account-methods';
import { ClusterMethods } from './cluster-methods';
import { FaucetMethods } from './faucet-methods';
import { JsonRpcDispatcher } from './json-rpc-dispatcher';
import { JsonRpcHttpServer, RpcAnswerObserver } from './json-rpc-http-server';
import { PubsubServer } from './pubsub/pubsub-server';
import { ResponsePool } from './response-pool';
import { RpcLimits } from './rpc-limits';
import { TransactionHistory } from './transaction-history';
import { TransactionMethods } from './transaction-methods';

export interface RpcServers {
  rpcPort: number;
  wsPort: number;
  close(): Promise<void>;
}

/** With port 0 the OS picks the RPC port; the next one must be free for PubSub, else retry. */
const EPHEMERAL_ATTEMPTS = 20;

export async function startRpcServers(deps: {
  bank: Bank;
  ledger: LedgerStore;
  faucet: Faucet;
  faucetRateLimit: FaucetRateLimit;
  limits: RpcLimits;
  host: string;
  port: number;
  log: (event: Record<string, unknown>) => void;
  /** Told of each JSON-RPC answer over HTTP (gateway metrics). */
  onAnswered?: RpcAnswerObserver;
}): Promise<RpcServers> {
  const { bank, ledger, faucet, limits, log } = deps;
  const internalError = (method: string, err: unknown) =>
    log({ event: 'rpc_internal_error', method, error: (err as Error)?.stack ?? String(err) });
  const dropped = (signature: string, reason: string) =>
    log({ event: 'transaction_dropped', signature, reason });
  const handlers = {
    ...new ClusterMethods(bank, faucet.publicKey.toBase58()).handlers(),
    ...new AccountMethods(bank, ledger, limits.maxProgramAccounts).handlers(),
    ...new TransactionMethods(bank, ledger, new SignatureVerifier(), dropped).handlers(),
    ...new TransactionHistory(bank, ledger).handlers(),
    ...new FaucetMethods(bank, faucet, deps.faucetRateLimit).handlers(),
  };
  // One pool for HTTP and WebSocket: together they hold at most this much response text.
  const pool = new ResponsePool(limits.maxInflightResponseBytes);
  const attempts = deps.port === 0 ? EPHEMERAL_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt++) {
    const http = new JsonRpcHttpServer(
      new JsonRpcDispatcher(handlers, internalError, limits, pool),
      {
        maxRequestBodyBytes: limits.maxRequestBodyBytes,
        onInternalError: internalError,
        connectionCap: {
          maxPerAddress: limits.maxConnectionsPerAddress,
          exemptIps: limits.connectionCapExemptIps,
          onRefused: (r) => log({ event: 'connections_refused', listener: 'rpc', ...r }),
        },
        responseTimeoutMs: limits.responseTimeoutMs,
        onAnswered: deps.onAnswered,
      },
    );
    const rpcPort = await http.listen(deps.port, deps.host);
    const pubsub = new PubsubServer(bank, ledger, internalError, limits, pool, log);
    try {
      const wsPort = await pubsub.listen(rpcPort + 1, deps.host);
      return {
        rpcPort,
        wsPort,
        close: async () => {
          await pubsub.close();
          await http.close();
        },
      };
    } catch (err) {
      await pubsub.close();
      await http.close();
      if (attempt >= attempts || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
}
