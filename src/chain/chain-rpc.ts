import { OnModuleDestroy } from '@nestjs/common';
import { Commitment, Connection } from '@solana/web3.js';
import { ChainConfig, rpcEndpoints } from '../config/chain.config';
import { observeChainCall } from '../observability/process-metrics';
import { toChainError } from './chain-error';
import { closeConnectionSocket } from './close-connection';
import { RpcEndpoints } from './rpc-endpoints';

export interface RawRpcReply {
  result?: unknown;
  error?: { code: number; message: string };
}

/**
 * The web3.js `Connection`s of a process (one per RPC endpoint of `chain.rpc_url(s)`), shared by
 * the reader, the writer and the faucet. Every call through them fails as a ChainError naming
 * the endpoint. With several endpoints, a request the first cannot take (unreachable, 5xx) goes
 * to the next, in order (RpcEndpoints); `connection` is the first endpoint that is up, so a
 * transaction is confirmed over the WebSocket of a node that answers.
 */
export class ChainRpc implements OnModuleDestroy {
  private readonly connections = new Map<number, Connection>();
  private readonly endpoints: RpcEndpoints;

  /**
   * `connection` is the first endpoint's (at `url`); with `failover`, the other endpoints'
   * Connections are made when first needed.
   */
  constructor(
    connection: Connection,
    url: string,
    readonly commitment: Commitment,
    private readonly failover?: {
      endpoints: RpcEndpoints;
      makeConnection: (index: number) => Connection;
    },
  ) {
    this.endpoints = failover?.endpoints ?? new RpcEndpoints([url]);
    this.connections.set(0, connection);
  }

  static fromConfig(config: ChainConfig): ChainRpc {
    const urls = rpcEndpoints(config);
    if (urls.length === 0) throw new Error('chain.rpc_url is not set');
    const endpoints = new RpcEndpoints(urls);
    const makeConnection = (index: number): Connection =>
      new Connection(urls[index], {
        commitment: config.commitment,
        // An explicit ws_url belongs to the first endpoint; the others use their own.
        wsEndpoint: index === 0 ? config.ws_url : undefined,
        // Public RPC providers answer 429: a caller decides, web3.js must not sleep and resend.
        disableRetryOnRateLimit: true,
        ...(urls.length > 1 && {
          fetch: (_url: unknown, init?: RequestInit) => endpoints.fetch(init ?? {}, index),
        }),
      });
    return new ChainRpc(makeConnection(0), urls[0], config.commitment, {
      endpoints,
      makeConnection,
    });
  }

  /** The endpoint requests go to first now (the first one not known to be down). */
  get url(): string {
    return this.endpoints.url(this.endpoints.active());
  }

  /** Every endpoint, in the order they are tried. */
  get urls(): readonly string[] {
    return this.endpoints.urls;
  }

  /** The Connection of the first endpoint that is up. */
  get connection(): Connection {
    const index = this.endpoints.active();
    let connection = this.connections.get(index);
    if (!connection) {
      connection = this.failover!.makeConnection(index);
      this.connections.set(index, connection);
    }
    return connection;
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
      res = await this.endpoints.fetch(
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        },
        this.endpoints.active(),
      );
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
    for (const connection of this.connections.values()) closeConnectionSocket(connection);
  }

  onModuleDestroy(): void {
    this.close();
  }
}
