import { OnModuleDestroy } from '@nestjs/common';
import { Commitment, Connection } from '@solana/web3.js';
import { ChainConfig } from '../config/chain.config';
import { observeChainCall } from '../observability/process-metrics';
import { toChainError } from './chain-error';
import { closeConnectionSocket } from './close-connection';

export interface RawRpcReply {
  result?: unknown;
  error?: { code: number; message: string };
}

/**
 * The one web3.js `Connection` of a process (per RPC endpoint), shared by the reader, the writer
 * and the faucet. Every call through it fails as a ChainError naming the endpoint.
 */
export class ChainRpc implements OnModuleDestroy {
  constructor(
    readonly connection: Connection,
    readonly url: string,
    readonly commitment: Commitment,
  ) {}

  static fromConfig(config: ChainConfig): ChainRpc {
    if (!config.rpc_url) throw new Error('chain.rpc_url is not set');
    const connection = new Connection(config.rpc_url, {
      commitment: config.commitment,
      wsEndpoint: config.ws_url,
      // Public RPC providers answer 429: a caller decides, web3.js must not sleep and resend.
      disableRetryOnRateLimit: true,
    });
    return new ChainRpc(connection, config.rpc_url, config.commitment);
  }

  async call<T>(request: (connection: Connection) => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      const result = await request(this.connection);
      observeChainCall((performance.now() - start) / 1000);
      return result;
    } catch (err) {
      const error = toChainError(err, this.url);
      observeChainCall((performance.now() - start) / 1000, error.kind);
      throw error;
    }
  }

  /** A JSON-RPC method web3.js does not know (the local network's own). */
  async raw(method: string, params: unknown[]): Promise<RawRpcReply> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
    } catch (err) {
      throw toChainError(err, this.url);
    }
    return (await res.json()) as RawRpcReply;
  }

  /** Resolves when the RPC answers; used by /healthz and the CLI's watchdog. */
  async ping(): Promise<void> {
    await this.call((c) => c.getSlot());
  }

  /** web3.js would retry its WebSocket for ever after shutdown: close it with the app. */
  close(): void {
    closeConnectionSocket(this.connection);
  }

  onModuleDestroy(): void {
    this.close();
  }
}
