import bs58 from 'bs58';
import { CommittedTransaction, SlotEvent } from '../../bank/bank';
import { AccountWrite, StoredAccount } from '../../ledger/ledger-store';
import { RENT_EXEMPT_EPOCH } from '../../transactions/rent';
import { accountMatches } from '../account-filters';
import { toJsonText } from '../json-text';
import { AccountJson } from './account-json';
import { SubscriptionRegistry } from './subscription-registry';

/** What an account subscription sees of a closed account, as on Solana. */
const EMPTY_ACCOUNT: StoredAccount = {
  lamports: 0,
  owner: Buffer.alloc(32),
  executable: false,
  rentEpoch: RENT_EXEMPT_EPOCH,
  data: Buffer.alloc(0),
};

/**
 * Turns the bank's events into notifications: signatures, slots, and each written account for
 * its account subscribers and for the program subscribers of its owner whose filters it passes.
 * An account's JSON is built once per write and encoding and shared by every socket
 * (AccountJson, NotificationQueue.sendShared); only the few bytes around it are per subscriber.
 */
export class ChainNotifier {
  constructor(
    private readonly registry: SubscriptionRegistry,
    private readonly maxResponseBytes: number,
    private readonly onInternalError: (method: string, err: unknown) => void,
  ) {}

  transactionCommitted(t: CommittedTransaction): void {
    for (const id of this.registry.ids('signature', t.signature)) {
      this.notifySignature(id, t.slot, t.err);
    }
    if (!this.registry.hasAny('account') && !this.registry.hasAny('program')) return;
    for (const write of t.writes) this.accountWritten(write, t.slot);
  }

  slotProduced(e: SlotEvent): void {
    for (const id of this.registry.slotIds()) {
      const sub = this.registry.get(id);
      if (sub) sub.client.queue.sendText(notification('slotNotification', id, e));
    }
  }

  /** A signature subscription fires once and is gone: Solana removes it after notifying. */
  notifySignature(id: number, slot: number, err: unknown): void {
    const sub = this.registry.get(id);
    if (sub?.kind !== 'signature') return;
    const context = { slot };
    if (sub.received) {
      sub.client.queue.sendText(
        notification('signatureNotification', id, { context, value: 'receivedSignature' }),
      );
    }
    sub.client.queue.sendText(
      notification('signatureNotification', id, { context, value: { err } }),
    );
    this.registry.remove(id);
  }

  private accountWritten(write: AccountWrite, slot: number): void {
    let json: AccountJson | undefined;
    const shared = () =>
      (json ??= new AccountJson(
        write.account ?? EMPTY_ACCOUNT,
        this.maxResponseBytes,
        this.onInternalError,
      ));
    const context = `{"context":{"slot":${slot}},"value":`;
    for (const id of this.registry.ids('account', write.pubkey.toString('base64'))) {
      const sub = this.registry.get(id);
      if (sub?.kind !== 'account' || !sub.client.queue.open) continue;
      const body = shared().get(sub.encoding);
      if (!body) continue;
      sub.client.queue.sendShared(
        `{"jsonrpc":"2.0","method":"accountNotification","params":{"result":${context}`,
        body,
        `},"subscription":${id}}}`,
      );
    }
    // A program's subscribers hear of the accounts it owns after the write; a closed or
    // reassigned account is no longer the program's (agave notifies neither).
    const account = write.account;
    if (!account) return;
    let pubkey: string | undefined;
    for (const id of this.registry.ids('program', account.owner.toString('base64'))) {
      const sub = this.registry.get(id);
      if (sub?.kind !== 'program' || !sub.client.queue.open) continue;
      if (!accountMatches(account, sub.filters)) continue;
      const body = shared().get(sub.encoding);
      if (!body) continue;
      pubkey ??= bs58.encode(write.pubkey);
      sub.client.queue.sendShared(
        `{"jsonrpc":"2.0","method":"programNotification","params":{"result":${context}{"pubkey":"${pubkey}","account":`,
        body,
        `}},"subscription":${id}}}`,
      );
    }
  }
}

function notification(method: string, subscription: number, result: unknown): string {
  return toJsonText({ jsonrpc: '2.0', method, params: { result, subscription } });
}
