import bs58 from 'bs58';
import { Bank } from '../../bank/bank';
import { LedgerStore } from '../../ledger/ledger-store';
import { encodingParam } from '../account-encoding';
import { parseFilters } from '../account-filters';
import { RpcError } from '../rpc-error';
import { RpcHandlers } from '../rpc-handler';
import { configParam, pubkeyParam, required, RpcParams, signatureParam } from '../rpc-params';
import { ChainNotifier } from './chain-notifier';
import { PubsubClient, SubscriptionRegistry } from './subscription-registry';

/**
 * Solana's subscribe and unsubscribe methods for one connection: signature, slot, account and
 * program subscriptions. `after` runs once the answer is sent (a signature already committed is
 * notified after its subscription id, as on Solana).
 */
export function subscriptionMethods(deps: {
  bank: Bank;
  ledger: LedgerStore;
  registry: SubscriptionRegistry;
  notifier: ChainNotifier;
  client: PubsubClient;
  after: Array<() => void>;
}): RpcHandlers {
  const { bank, ledger, registry, notifier, client, after } = deps;
  const unsubscribe = (p: RpcParams): boolean => {
    const id = required(p, 0, 'subscription id');
    if (typeof id !== 'number' || !client.ids.has(id)) {
      throw new RpcError(-32602, 'Invalid subscription id.');
    }
    registry.remove(id);
    return true;
  };
  return {
    signatureSubscribe: (p) => {
      const signature = signatureParam(required(p, 0, 'signature'));
      const config = configParam(p, 1, bank.slot);
      const key = bs58.encode(signature);
      const received = config.enableReceivedNotification === true;
      const id = registry.add({ kind: 'signature', client, key, received });
      const status = ledger.getStatus(signature);
      if (status) {
        const err: unknown = status.err === null ? null : JSON.parse(status.err);
        after.push(() => notifier.notifySignature(id, status.slot, err));
      }
      return id;
    },
    signatureUnsubscribe: unsubscribe,
    slotSubscribe: () => registry.add({ kind: 'slot', client }),
    slotUnsubscribe: unsubscribe,
    accountSubscribe: (p) => {
      const pubkey = pubkeyParam(required(p, 0, 'pubkey'));
      const config = configParam(p, 1, bank.slot);
      const encoding = encodingParam(config.encoding, 'binary');
      const key = pubkey.toBuffer().toString('base64');
      return registry.add({ kind: 'account', client, key, encoding });
    },
    accountUnsubscribe: unsubscribe,
    programSubscribe: (p) => {
      const program = pubkeyParam(required(p, 0, 'program id'));
      const config = configParam(p, 1, bank.slot);
      const encoding = encodingParam(config.encoding, 'binary');
      const filters = parseFilters(config.filters);
      const key = program.toBuffer().toString('base64');
      return registry.add({ kind: 'program', client, key, encoding, filters });
    },
    programUnsubscribe: unsubscribe,
  };
}
