import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { RawData, WebSocket, WebSocketServer } from 'ws';
import { capConnectionsPerAddress, connectionKey } from '../../../http/connection-cap';
import { Bank } from '../../bank/bank';
import { LedgerStore } from '../../ledger/ledger-store';
import { clientAddress } from '../client-address';
import { failure, JsonRpcDispatcher } from '../json-rpc-dispatcher';
import { toJsonText } from '../json-text';
import { ResponsePool } from '../response-pool';
import { RpcError } from '../rpc-error';
import { RpcLimits } from '../rpc-limits';
import { ChainNotifier } from './chain-notifier';
import { NotificationQueue } from './notification-queue';
import { subscriptionMethods } from './subscription-methods';
import { PubsubClient, SubscriptionRegistry } from './subscription-registry';

const MAX_SUBSCRIPTIONS_PER_CONNECTION = 10_000;

/**
 * Solana's PubSub WebSocket API on the RPC port + 1: signature, slot, account and program
 * subscriptions (ChainNotifier, subscriptionMethods). What one client address may hold is
 * capped: connections (`maxWsConnectionsPerAddress`, closed at accept like every listener's),
 * subscriptions (`maxWsSubscriptionsPerAddress`) and,
 * per connection, unsent notification bytes (`maxWsBufferedBytes`, NotificationQueue).
 */
export class PubsubServer {
  private server?: WebSocketServer;
  private http?: Server;
  private readonly registry: SubscriptionRegistry;
  private readonly notifier: ChainNotifier;
  private readonly detach: Array<() => void> = [];

  constructor(
    private readonly bank: Bank,
    private readonly ledger: LedgerStore,
    private readonly onInternalError: (method: string, err: unknown) => void,
    private readonly limits: RpcLimits,
    private readonly pool: ResponsePool,
    private readonly log: (event: Record<string, unknown>) => void = () => undefined,
  ) {
    this.registry = new SubscriptionRegistry({
      perConnection: MAX_SUBSCRIPTIONS_PER_CONNECTION,
      perAddress: limits.maxWsSubscriptionsPerAddress,
    });
    this.notifier = new ChainNotifier(this.registry, limits.maxResponseBytes, onInternalError);
    // Listeners run inside the bank's commit: a failing notification must not reach it.
    this.detach.push(
      bank.onTransaction((t) =>
        this.guarded('notify', () => this.notifier.transactionCommitted(t)),
      ),
    );
    this.detach.push(
      bank.onSlot((s) => this.guarded('notify', () => this.notifier.slotProduced(s))),
    );
  }

  async listen(port: number, host: string): Promise<number> {
    // Our own HTTP server (as ws makes for `port`), to cap connections per client address on it.
    const http = (this.http = createServer((_req, res) =>
      res.writeHead(426).end('Upgrade Required'),
    ));
    capConnectionsPerAddress(http, {
      maxPerAddress: this.limits.maxWsConnectionsPerAddress,
      onRefused: (r) => this.log({ event: 'connections_refused', listener: 'pubsub', ...r }),
    });
    const server = new WebSocketServer({
      server: http,
      maxPayload: this.limits.maxRequestBodyBytes,
      // Compression would deflate each socket's copy of a shared notification separately.
      perMessageDeflate: false,
    });
    await new Promise<void>((resolve, reject) => {
      http.once('listening', () => resolve());
      http.once('error', reject);
      http.listen(port, host);
    });
    server.on('connection', (ws: WebSocket, req: IncomingMessage) =>
      this.guarded('connection', () => this.accept(ws, clientAddress(req.socket.remoteAddress))),
    );
    server.on('error', (err) => this.onInternalError('pubsub', err));
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const off of this.detach) off();
    const server = this.server;
    if (!server) return;
    for (const client of server.clients) client.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const http = this.http;
    if (http) await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  private accept(ws: WebSocket, ip: string): void {
    const limitKey = connectionKey(ip);
    const queue = new NotificationQueue(ws, this.limits.maxWsBufferedBytes, (queuedBytes) =>
      this.log({ event: 'pubsub_client_dropped', client: ip, queuedBytes }),
    );
    const client: PubsubClient = { queue, limitKey, ids: new Set() };
    const after: Array<() => void> = [];
    const dispatcher = new JsonRpcDispatcher(
      subscriptionMethods({
        bank: this.bank,
        ledger: this.ledger,
        registry: this.registry,
        notifier: this.notifier,
        client,
        after,
      }),
      this.onInternalError,
      this.limits,
      this.pool,
    );
    ws.on('message', (raw: RawData) => {
      let body: unknown;
      try {
        body = JSON.parse(rawText(raw));
      } catch {
        queue.sendText(toJsonText(failure(null, RpcError.parse())));
        return;
      }
      dispatcher
        .dispatch(body, ip)
        .then((reply) => {
          if (reply !== null) {
            queue.sendText(reply.text);
            dispatcher.release(reply.held);
          }
          for (const run of after.splice(0)) run();
        })
        .catch((err: unknown) => {
          this.onInternalError('pubsub', err);
          ws.terminate();
        });
    });
    ws.on('close', () => {
      queue.discard();
      this.registry.removeClient(client);
    });
    ws.on('error', () => ws.terminate());
  }

  private guarded(what: string, run: () => void): void {
    try {
      run();
    } catch (err) {
      this.onInternalError(what, err);
    }
  }
}

function rawText(raw: RawData): string {
  if (Buffer.isBuffer(raw)) return raw.toString('utf8');
  if (Array.isArray(raw)) return Buffer.concat(raw).toString('utf8');
  return Buffer.from(raw).toString('utf8');
}
