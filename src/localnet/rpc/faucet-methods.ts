import { Faucet, FaucetRefusal } from '../faucet';
import { Bank } from '../bank/bank';
import { RpcError } from './rpc-error';
import { RpcHandlers } from './rpc-handler';
import { configParam, pubkeyParam, required, unsignedParam } from './rpc-params';

/** requestAirdrop (SOL) and the custom tape_requestStorageTokens (storage tokens). */
export class FaucetMethods {
  constructor(
    private readonly bank: Bank,
    private readonly faucet: Faucet,
  ) {}

  handlers(): RpcHandlers {
    return {
      requestAirdrop: (p) => {
        const to = pubkeyParam(required(p, 0, 'pubkey'));
        const lamports = unsignedParam(required(p, 1, 'lamports'), 'lamports');
        configParam(p, 2, this.bank.slot);
        return refusalsAsParams(() => this.faucet.airdrop(to, lamports));
      },
      tape_requestStorageTokens: (p) => {
        const owner = pubkeyParam(required(p, 0, 'owner'));
        const amount = baseUnits(required(p, 1, 'amount'));
        return refusalsAsParams(() => this.faucet.storageTokens(owner, amount));
      },
    };
  }
}

function refusalsAsParams(grant: () => string): string {
  try {
    return grant();
  } catch (err) {
    if (err instanceof FaucetRefusal) throw RpcError.invalidParams(err.message);
    throw err;
  }
}

/** An amount of token base units: a non-negative integer, as a JSON number or a decimal string. */
function baseUnits(value: unknown): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^[0-9]{1,20}$/.test(value)) return BigInt(value);
  throw RpcError.invalidParams('amount must be a non-negative integer (number or decimal string)');
}
