import bs58 from 'bs58';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { capConnectionsPerAddress } from '../../http/connection-cap';
import { RawData, WebSocket, WebSocketServer } from 'ws';
import { Bank, CommittedTransaction, SlotEvent } from '../bank/bank';
import { LedgerStore, StoredAccount } from '../ledger/ledger-store';
import { RENT_EXEMPT_EPOCH } from '../transactions/rent';
import { AccountEncoding, encodeAccount, encodingParam } from './account-encoding';
import { clientAddress } from './client-address';
import { failure, JsonRpcDispatcher } from './json-rpc-dispatcher';
import { toJsonText } from './json-text';
import { RpcError } from './rpc-error';
import { RpcHandlers } from './rpc-handler';
import { RpcLimits } from './rpc-limits';
import { configParam, pubkeyParam, required, RpcParams, signatureParam } from './rpc-params';
import { ResponseBudget } from './response-budget';
import { ResponsePool } from './response-pool';

const MAX_SUBSCRIPTIONS_PER_SOCKET = 10_000;

type Subscription =
  | { kind: 'signature'; ws: WebSocket; key: string; received: boolean }
  | { kind: 'slot'; ws: WebSocket }
  | { kind: 'account'; ws: WebSocket; key: string; encoding: AccountEncoding };

const EMPTY_ACCOUNT: StoredAccount = {
  lamports: 0,
  owner: Buffer.alloc(32),
  executable: false,
  rentEpoch: RENT_EXEMPT_EPOCH,
  data: Buffer.alloc(0),
};

/**
 * Solana's PubSub WebSocket API on the RPC port + 1: signatureSubscribe (one notification when
 * the transaction is committed — at once if it already is — then the subscription ends, as on
 * Solana), slotSubscribe and accountSubscribe, with their Unsubscribe methods.
 */
export class PubsubServer {
  private server?: WebSocketServer;
  private http?: Server;
  private readonly subscriptions = new Map<number, Subscription>();
  private readonly bySignature = new Map<string, Set<number>>();
  private readonly byAccount = new Map<string, Set<number>>();
  private readonly slotSubscribers = new Set<number>();
  private readonly bySocket = new Map<WebSocket, Set<number>>();
  private nextId = 0;
  private readonly detach: Array<() => void> = [];

  constructor(
    private readonly bank: Bank,
    private readonly ledger: LedgerStore,
    private readonly onInternalError: (method: string, err: unknown) => void,
    private readonly limits: RpcLimits,
    private readonly pool: ResponsePool,
  ) {
    // Listeners run inside the bank's commit: a failing notification must not reach it.
    this.detach.push(
      bank.onTransaction((t) => this.guarded('notify', () => this.transactionCommitted(t))),
    );
    this.detach.push(bank.onSlot((s) => this.guarded('notify', () => this.slotProduced(s))));
  }

  async listen(port: number, host: string): Promise<number> {
    // Our own HTTP server (as ws makes for `port`), to cap connections per client address on it.
    const http = (this.http = createServer((_req, res) =>
      res.writeHead(426).end('Upgrade Required'),
    ));
    capConnectionsPerAddress(http, { maxPerAddress: this.limits.maxConnectionsPerAddress });
    const server = new WebSocketServer({
      server: http,
      maxPayload: this.limits.maxRequestBodyBytes,
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

  private accept(ws: WebSocket, clientIp: string): void {
    const mine = new Set<number>();
    this.bySocket.set(ws, mine);
    const after: Array<() => void> = [];
    const dispatcher = new JsonRpcDispatcher(
      this.handlers(ws, mine, after),
      this.onInternalError,
      this.limits,
      this.pool,
    );
    ws.on('message', (raw: RawData) => {
      let body: unknown;
      try {
        body = JSON.parse(rawText(raw));
      } catch {
        this.sendText(ws, toJsonText(failure(null, RpcError.parse())));
        return;
      }
      dispatcher
        .dispatch(body, clientIp)
        .then((reply) => {
          if (reply !== null) {
            this.sendText(ws, reply.text);
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
      for (const id of [...mine]) this.remove(id);
      this.bySocket.delete(ws);
    });
    ws.on('error', () => ws.terminate());
  }

  private handlers(ws: WebSocket, mine: Set<number>, after: Array<() => void>): RpcHandlers {
    const add = (sub: Subscription): number => {
      if (mine.size >= MAX_SUBSCRIPTIONS_PER_SOCKET) {
        throw RpcError.invalidRequest(
          `too many subscriptions (max ${MAX_SUBSCRIPTIONS_PER_SOCKET})`,
        );
      }
      const id = this.nextId++;
      this.subscriptions.set(id, sub);
      mine.add(id);
      return id;
    };
    const unsubscribe = (p: RpcParams): boolean => {
      const id = required(p, 0, 'subscription id');
      if (typeof id !== 'number' || !mine.has(id)) {
        throw new RpcError(-32602, 'Invalid subscription id.');
      }
      this.remove(id);
      return true;
    };
    return {
      signatureSubscribe: (p) => {
        const signature = signatureParam(required(p, 0, 'signature'));
        const config = configParam(p, 1, this.bank.slot);
        const key = bs58.encode(signature);
        const id = add({
          kind: 'signature',
          ws,
          key,
          received: config.enableReceivedNotification === true,
        });
        index(this.bySignature, key, id);
        const status = this.ledger.getStatus(signature);
        if (status) {
          const err: unknown = status.err === null ? null : JSON.parse(status.err);
          after.push(() => this.notifySignature(id, status.slot, err));
        }
        return id;
      },
      signatureUnsubscribe: unsubscribe,
      slotSubscribe: () => {
        const id = add({ kind: 'slot', ws });
        this.slotSubscribers.add(id);
        return id;
      },
      slotUnsubscribe: unsubscribe,
      accountSubscribe: (p) => {
        const pubkey = pubkeyParam(required(p, 0, 'pubkey'));
        const config = configParam(p, 1, this.bank.slot);
        const encoding = encodingParam(config.encoding, 'binary');
        const key = pubkey.toBuffer().toString('base64');
        const id = add({ kind: 'account', ws, key, encoding });
        index(this.byAccount, key, id);
        return id;
      },
      accountUnsubscribe: unsubscribe,
    };
  }

  private transactionCommitted(t: CommittedTransaction): void {
    const subs = this.bySignature.get(t.signature);
    if (subs) for (const id of [...subs]) this.notifySignature(id, t.slot, t.err);
    if (this.byAccount.size === 0) return;
    for (const write of t.writes) {
      const ids = this.byAccount.get(write.pubkey.toString('base64'));
      if (!ids) continue;
      // Encoded once per encoding, however many sockets subscribed to the account.
      const values = new Map<AccountEncoding, string | null>();
      for (const id of [...ids]) {
        const sub = this.subscriptions.get(id);
        if (sub?.kind !== 'account' || sub.ws.readyState !== WebSocket.OPEN) continue;
        const encoding = sub.encoding === 'binary' ? 'base58' : sub.encoding;
        if (!values.has(encoding)) {
          values.set(encoding, this.accountValueText(write.account ?? EMPTY_ACCOUNT, encoding));
        }
        const value = values.get(encoding);
        if (value === null || value === undefined) continue;
        this.sendText(
          sub.ws,
          `{"jsonrpc":"2.0","method":"accountNotification","params":{"result":{"context":{"slot":${t.slot}},"value":${value}},"subscription":${id}}}`,
        );
      }
    }
  }

  /**
   * The account as notification JSON, or null when it cannot be sent: base58 of more than 128
   * bytes (Solana refuses it too) or more than a response may hold.
   */
  private accountValueText(account: StoredAccount, encoding: AccountEncoding): string | null {
    try {
      const budget = new ResponseBudget(this.limits.maxResponseBytes);
      return toJsonText(encodeAccount(account, encoding, undefined, undefined, budget));
    } catch (err) {
      if (!(err instanceof RpcError)) this.onInternalError('accountNotification', err);
      return null;
    }
  }

  /** A signature subscription fires once and is gone: Solana removes it after notifying. */
  private notifySignature(id: number, slot: number, err: unknown): void {
    const sub = this.subscriptions.get(id);
    if (sub?.kind !== 'signature') return;
    if (sub.received) {
      this.notify(sub.ws, 'signatureNotification', id, {
        context: { slot },
        value: 'receivedSignature',
      });
    }
    this.notify(sub.ws, 'signatureNotification', id, { context: { slot }, value: { err } });
    this.remove(id);
  }

  private slotProduced(e: SlotEvent): void {
    for (const id of this.slotSubscribers) {
      const sub = this.subscriptions.get(id);
      if (sub) this.notify(sub.ws, 'slotNotification', id, e);
    }
  }

  private remove(id: number): void {
    const sub = this.subscriptions.get(id);
    if (!sub) return;
    this.subscriptions.delete(id);
    this.bySocket.get(sub.ws)?.delete(id);
    if (sub.kind === 'signature') unindex(this.bySignature, sub.key, id);
    else if (sub.kind === 'account') unindex(this.byAccount, sub.key, id);
    else this.slotSubscribers.delete(id);
  }

  private notify(ws: WebSocket, method: string, subscription: number, result: unknown): void {
    this.send(ws, { jsonrpc: '2.0', method, params: { result, subscription } });
  }

  private send(ws: WebSocket, message: unknown): void {
    if (ws.readyState === WebSocket.OPEN) this.sendText(ws, toJsonText(message));
  }

  /** A client that does not read its notifications is dropped, not buffered for without end. */
  private sendText(ws: WebSocket, text: string): void {
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount + Buffer.byteLength(text) > this.limits.maxWsBufferedBytes) {
      ws.terminate();
      return;
    }
    ws.send(text);
  }

  private guarded(what: string, run: () => void): void {
    try {
      run();
    } catch (err) {
      this.onInternalError(what, err);
    }
  }
}

function index(map: Map<string, Set<number>>, key: string, id: number): void {
  const set = map.get(key) ?? new Set<number>();
  set.add(id);
  map.set(key, set);
}

function unindex(map: Map<string, Set<number>>, key: string, id: number): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) map.delete(key);
}

function rawText(raw: RawData): string {
  if (Buffer.isBuffer(raw)) return raw.toString('utf8');
  if (Array.isArray(raw)) return Buffer.concat(raw).toString('utf8');
  return Buffer.from(raw).toString('utf8');
}
