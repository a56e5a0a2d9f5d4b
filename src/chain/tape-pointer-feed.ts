import { Logger } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import WebSocket from 'ws';
import { ChainConfig } from '../config/chain.config';
import { AccountTag, decodeTape, TapeRecord } from './account-layouts';
import { TapeInstructions } from './tape-instructions';

/** What a feed reports: a tape account written, and whether the subscription is live. */
export interface TapePointerHandlers {
  /** The tape account at `tape` now holds `record`. */
  changed(tape: string, record: TapeRecord): void;
  /**
   * Up once the chain acknowledged the subscription; down when it is refused or lost (then the
   * caller polls: notifications may have been missed).
   */
  state(up: boolean): void;
}

export interface TapePointerWatch {
  close(): void;
}

/**
 * Every write to any tape account of the tape program, pushed by the chain: what keeps site
 * snapshots fresh without a timer (docs/versions.md, "Serving and invalidation"). The DI token;
 * production: WsTapePointerFeed.
 */
export abstract class TapePointerFeed {
  abstract watch(handlers: TapePointerHandlers): TapePointerWatch;
}

export interface WsFeedOptions {
  /** First wait before reconnecting after a loss or a refusal; doubles up to `maxRetryMs`. */
  retryMs: number;
  maxRetryMs: number;
}

const DEFAULT_WS_FEED: WsFeedOptions = { retryMs: 500, maxRetryMs: 30_000 };
const SUBSCRIBE_ID = 1;

/**
 * One `programSubscribe` on the RPC node's PubSub WebSocket, filtered `memcmp` at offset 0 on
 * the tape tag, so one subscription covers every tape. Its own small client rather than
 * web3.js's `onProgramAccountChange`: web3.js hides whether the subscription is live and
 * re-sends a refused one in a tight loop, and the caller must know when to poll instead.
 */
export class WsTapePointerFeed extends TapePointerFeed {
  private readonly logger = new Logger('chain');
  private readonly options: WsFeedOptions;

  constructor(
    private readonly wsUrl: string,
    private readonly programId: PublicKey,
    options: Partial<WsFeedOptions> = {},
  ) {
    super();
    this.options = { ...DEFAULT_WS_FEED, ...options };
  }

  watch(handlers: TapePointerHandlers): TapePointerWatch {
    let closed = false;
    let socket: WebSocket | undefined;
    let timer: NodeJS.Timeout | undefined;
    let delay = this.options.retryMs;
    let up = false;
    let refusedLogged = false;
    const setUp = (value: boolean) => {
      if (up === value) return;
      up = value;
      handlers.state(value);
    };
    const retry = () => {
      setUp(false);
      if (closed || timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        connect();
      }, delay);
      timer.unref();
      delay = Math.min(delay * 2, this.options.maxRetryMs);
    };
    const connect = () => {
      if (closed) return;
      const ws = new WebSocket(this.wsUrl);
      socket = ws;
      ws.on('open', () => ws.send(this.subscribeRequest()));
      ws.on('message', (data: WebSocket.RawData) => {
        const message = parse(data);
        if (message === undefined) return;
        if (message.id === SUBSCRIBE_ID) {
          if (typeof message.result === 'number') {
            delay = this.options.retryMs;
            refusedLogged = false;
            return setUp(true);
          }
          if (!refusedLogged) {
            refusedLogged = true;
            this.logger.warn(
              `programSubscribe refused by ${this.wsUrl} (${message.error?.message ?? 'no result'}): polling tape pointers instead`,
            );
          }
          return ws.close();
        }
        if (message.method === 'programNotification') this.notify(message, handlers);
      });
      // 'close' follows 'error': one retry from there.
      ws.on('error', () => undefined);
      ws.on('close', () => {
        if (socket === ws) socket = undefined;
        retry();
      });
    };
    connect();
    return {
      close: () => {
        closed = true;
        if (timer !== undefined) clearTimeout(timer);
        socket?.terminate();
      },
    };
  }

  private subscribeRequest(): string {
    return JSON.stringify({
      jsonrpc: '2.0',
      id: SUBSCRIBE_ID,
      method: 'programSubscribe',
      params: [
        this.programId.toBase58(),
        {
          encoding: 'base64',
          commitment: 'confirmed',
          filters: [{ memcmp: { offset: 0, bytes: bs58.encode([AccountTag.Tape]) } }],
        },
      ],
    });
  }

  private notify(message: PubSubMessage, handlers: TapePointerHandlers): void {
    const value = message.params?.result?.value;
    const data = value?.account?.data;
    if (typeof value?.pubkey !== 'string' || !Array.isArray(data) || typeof data[0] !== 'string')
      return;
    let record: TapeRecord;
    try {
      record = decodeTape(Buffer.from(data[0], 'base64'));
    } catch {
      return; // not a tape this build can read: nothing of it is served either
    }
    handlers.changed(value.pubkey, record);
  }
}

interface PubSubMessage {
  id?: number;
  result?: unknown;
  error?: { message?: string };
  method?: string;
  params?: {
    result?: { value?: { pubkey?: unknown; account?: { data?: unknown } } };
  };
}

function parse(data: WebSocket.RawData): PubSubMessage | undefined {
  try {
    const bytes = Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.isBuffer(data)
        ? data
        : Buffer.from(data);
    const text = bytes.toString('utf8');
    const message: unknown = JSON.parse(text);
    return typeof message === 'object' && message !== null ? message : undefined;
  } catch {
    return undefined;
  }
}

/** The PubSub URL web3.js would use for an RPC URL: ws(s), the RPC port + 1 (Solana's rule). */
export function pubSubUrlOf(rpcUrl: string): string {
  const url = new URL(rpcUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (url.port !== '') url.port = String(Number(url.port) + 1);
  return url.toString();
}

/**
 * The gateway's feed, for every module that follows tape accounts (the site routes' freshness,
 * the collector's targeted checks): one `programSubscribe` per watcher on the chain's PubSub.
 */
export const TAPE_POINTER_FEED_PROVIDER = {
  provide: TapePointerFeed,
  inject: [ChainConfig, TapeInstructions],
  useFactory: (chain: ChainConfig, ix: TapeInstructions): TapePointerFeed =>
    new WsTapePointerFeed(chain.ws_url ?? pubSubUrlOf(chain.rpc_url!), ix.programId),
};
