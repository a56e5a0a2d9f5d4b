import { AccountFilter } from '../../ledger/ledger-store';
import { AccountEncoding } from '../account-encoding';
import { RpcError } from '../rpc-error';
import { NotificationQueue } from './notification-queue';

/** One WebSocket connection: where its notifications go and what it has subscribed to. */
export interface PubsubClient {
  queue: NotificationQueue;
  /** The client address as limits count it (IPv6 by /64). */
  limitKey: string;
  ids: Set<number>;
}

export type Subscription =
  | { kind: 'signature'; client: PubsubClient; key: string; received: boolean }
  | { kind: 'slot'; client: PubsubClient }
  | { kind: 'account'; client: PubsubClient; key: string; encoding: AccountEncoding }
  | {
      kind: 'program';
      client: PubsubClient;
      key: string;
      encoding: AccountEncoding;
      filters: AccountFilter[];
    };

export interface SubscriptionLimits {
  perConnection: number;
  perAddress: number;
}

/**
 * Every live subscription by id, indexed the ways notifications look them up (signature,
 * account, owning program, slot), with the caps per connection and per client address.
 */
export class SubscriptionRegistry {
  private readonly byId = new Map<number, Subscription>();
  private readonly index = {
    signature: new Map<string, Set<number>>(),
    account: new Map<string, Set<number>>(),
    program: new Map<string, Set<number>>(),
  };
  private readonly slot = new Set<number>();
  private readonly perAddress = new Map<string, number>();
  private nextId = 0;

  constructor(private readonly limits: SubscriptionLimits) {}

  /** Registers `sub` and returns its id, or throws -32600 past a cap. */
  add(sub: Subscription): number {
    const { client } = sub;
    if (client.ids.size >= this.limits.perConnection) {
      throw RpcError.invalidRequest(`too many subscriptions (max ${this.limits.perConnection})`);
    }
    const held = this.perAddress.get(client.limitKey) ?? 0;
    if (held >= this.limits.perAddress) {
      throw RpcError.invalidRequest(
        `too many subscriptions from this address (max ${this.limits.perAddress})`,
      );
    }
    const id = this.nextId++;
    this.byId.set(id, sub);
    client.ids.add(id);
    this.perAddress.set(client.limitKey, held + 1);
    if (sub.kind === 'slot') this.slot.add(id);
    else addTo(this.index[sub.kind], sub.key, id);
    return id;
  }

  get(id: number): Subscription | undefined {
    return this.byId.get(id);
  }

  /** Ids subscribed under `key` (a copy: notifying may remove some). */
  ids(kind: 'signature' | 'account' | 'program', key: string): number[] {
    const ids = this.index[kind].get(key);
    return ids ? [...ids] : [];
  }

  hasAny(kind: 'signature' | 'account' | 'program'): boolean {
    return this.index[kind].size > 0;
  }

  slotIds(): number[] {
    return [...this.slot];
  }

  remove(id: number): void {
    const sub = this.byId.get(id);
    if (!sub) return;
    this.byId.delete(id);
    sub.client.ids.delete(id);
    const held = (this.perAddress.get(sub.client.limitKey) ?? 1) - 1;
    if (held > 0) this.perAddress.set(sub.client.limitKey, held);
    else this.perAddress.delete(sub.client.limitKey);
    if (sub.kind === 'slot') this.slot.delete(id);
    else removeFrom(this.index[sub.kind], sub.key, id);
  }

  removeClient(client: PubsubClient): void {
    for (const id of [...client.ids]) this.remove(id);
  }
}

function addTo(map: Map<string, Set<number>>, key: string, id: number): void {
  const set = map.get(key) ?? new Set<number>();
  set.add(id);
  map.set(key, set);
}

function removeFrom(map: Map<string, Set<number>>, key: string, id: number): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) map.delete(key);
}
