import { Faucet, FaucetRefusal } from '../faucet';
import { FaucetRateLimit, FaucetRateLimited } from '../faucet-rate-limit';
import { Bank } from '../bank/bank';
import { RpcError } from './rpc-error';
import { RpcHandlers } from './rpc-handler';
import { configParam, pubkeyParam, required, unsignedParam } from './rpc-params';

/**
 * requestAirdrop (SOL) and the custom tape_requestStorageTokens (storage tokens), behind the
 * faucet's rate limit per client address and per recipient.
 */
export class FaucetMethods {
  constructor(
    private readonly bank: Bank,
    private readonly faucet: Faucet,
    private readonly rateLimit: FaucetRateLimit,
  ) {}

  handlers(): RpcHandlers {
    return {
      requestAirdrop: (p, call) => {
        const to = pubkeyParam(required(p, 0, 'pubkey'));
        const lamports = unsignedParam(required(p, 1, 'lamports'), 'lamports');
        configParam(p, 2, this.bank.slot);
        return faucetErrors(() => {
          this.rateLimit.admit(call.clientIp, to);
          return this.faucet.airdrop(to, lamports);
        });
      },
      tape_requestStorageTokens: (p, call) => {
        const owner = pubkeyParam(required(p, 0, 'owner'));
        const amount = baseUnits(required(p, 1, 'amount'));
        return faucetErrors(() => {
          this.rateLimit.admit(call.clientIp, owner);
          return this.faucet.storageTokens(owner, amount);
        });
      },
    };
  }
}

/**
 * A refused grant is -32602 with the reason; a rate-limited one is what agave's RPC answers
 * when its faucet refuses (-32603), with the faucet's reason and when to retry.
 */
function faucetErrors(grant: () => string): string {
  try {
    return grant();
  } catch (err) {
    if (err instanceof FaucetRefusal) throw RpcError.invalidParams(err.message);
    if (err instanceof FaucetRateLimited) {
      throw new RpcError(-32603, err.message, { retryAfterSecs: err.retryAfterSecs });
    }
    throw err;
  }
}

/** An amount of token base units: a non-negative integer, as a JSON number or a decimal string. */
function baseUnits(value: unknown): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^[0-9]{1,20}$/.test(value)) return BigInt(value);
  throw RpcError.invalidParams('amount must be a non-negative integer (number or decimal string)');
}
