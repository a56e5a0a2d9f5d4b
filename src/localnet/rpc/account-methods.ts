import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { TOKEN_PROGRAM_ID } from '../../chain/program-ids';
import {
  decodeMint,
  decodeTokenAccount,
  MINT_SIZE,
  TOKEN_ACCOUNT_SIZE,
} from '../../chain/spl-token-layouts';
import { Bank } from '../bank/bank';
import { AccountFilter, LedgerStore, StoredAccount } from '../ledger/ledger-store';
import { AccountEncoding, dataSliceParam, encodeAccount, encodingParam } from './account-encoding';
import { ACCOUNT_JSON_OVERHEAD, base64Length, ResponseBudget } from './response-budget';
import { RpcError, SolanaErrorCode } from './rpc-error';
import { RpcCall, RpcHandlers, withContext } from './rpc-handler';
import { parseFilters } from './account-filters';
import { configParam, pubkeyParam, required, RpcParams } from './rpc-params';
import { uiTokenAmount } from './token-account-parsing';

const MAX_MULTIPLE_ACCOUNTS = 100;

type KeyedAccount = { pubkey: Buffer; account: StoredAccount };

/**
 * Account reads: getAccountInfo, getMultipleAccounts, getProgramAccounts, balances, tokens.
 * Every encoded account is charged to the request's response budget before it is encoded;
 * scans stop at `maxProgramAccounts` accounts or the budget, with Solana's scan error.
 */
export class AccountMethods {
  constructor(
    private readonly bank: Bank,
    private readonly ledger: LedgerStore,
    private readonly maxProgramAccounts: number,
  ) {}

  handlers(): RpcHandlers {
    return {
      getAccountInfo: (p, call) => this.getAccountInfo(p, call),
      getMultipleAccounts: (p, call) => this.getMultipleAccounts(p, call),
      getProgramAccounts: (p, call) => this.getProgramAccounts(p, call),
      getBalance: (p) => {
        const key = pubkeyParam(required(p, 0, 'pubkey'));
        configParam(p, 1, this.bank.slot);
        return withContext(this.bank, this.ledger.getAccount(key.toBuffer())?.lamports ?? 0);
      },
      getTokenAccountBalance: (p) => this.getTokenAccountBalance(p),
      getTokenAccountsByOwner: (p, call) => this.getTokenAccountsByOwner(p, call),
      getTokenSupply: (p) => {
        const mint = this.mint(pubkeyParam(required(p, 0, 'mint')));
        configParam(p, 1, this.bank.slot);
        return withContext(this.bank, uiTokenAmount(mint.supply, mint.decimals));
      },
    };
  }

  private getAccountInfo(p: RpcParams, call: RpcCall): unknown {
    const key = pubkeyParam(required(p, 0, 'pubkey'));
    const config = configParam(p, 1, this.bank.slot);
    const encoding = encodingParam(config.encoding, 'binary');
    const slice = dataSliceParam(config.dataSlice);
    const account = this.ledger.getAccount(key.toBuffer());
    return withContext(
      this.bank,
      account ? this.encode(account, encoding, slice, call.budget) : null,
    );
  }

  private getMultipleAccounts(p: RpcParams, call: RpcCall): unknown {
    const keys = required(p, 0, 'pubkeys');
    if (!Array.isArray(keys))
      throw RpcError.invalidParams('invalid type: expected a list of pubkeys');
    if (keys.length > MAX_MULTIPLE_ACCOUNTS) {
      throw RpcError.invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
    }
    const config = configParam(p, 1, this.bank.slot);
    const encoding = encodingParam(config.encoding, 'base64');
    const slice = dataSliceParam(config.dataSlice);
    const values = keys.map((k) => {
      const account = this.ledger.getAccount(pubkeyParam(k).toBuffer());
      return account ? this.encode(account, encoding, slice, call.budget) : null;
    });
    return withContext(this.bank, values);
  }

  private getProgramAccounts(p: RpcParams, call: RpcCall): unknown {
    const program = pubkeyParam(required(p, 0, 'program id'));
    const config = configParam(p, 1, this.bank.slot);
    const encoding = encodingParam(config.encoding, 'binary');
    const slice = dataSliceParam(config.dataSlice);
    const filters = parseFilters(config.filters);
    const values = this.scan(program.toBuffer(), filters, slice, call).map((row) => ({
      account: this.encode(row.account, encoding, slice),
      pubkey: bs58.encode(row.pubkey),
    }));
    return config.withContext === true ? withContext(this.bank, values) : values;
  }

  /**
   * The accounts of an owner, read row by row until `maxProgramAccounts` or the response
   * budget would be passed: then Solana's scan error, before anything is encoded. (Encoding
   * happens after the rows are read: the ledger cannot answer other queries mid-iteration.)
   */
  private scan(
    owner: Buffer,
    filters: AccountFilter[],
    slice: { offset: number; length: number } | undefined,
    call: RpcCall,
  ): KeyedAccount[] {
    const max = this.maxProgramAccounts;
    const budget = new ResponseBudget(call.budget.remaining, (bytes) =>
      scanAborted(`more than ${max} accounts or ${bytes} bytes of response`),
    );
    const rows: KeyedAccount[] = [];
    for (const row of this.ledger.accountsOwnedBy(owner, filters)) {
      if (rows.length === max) throw scanAborted(`more than ${max} accounts`);
      const length = slice
        ? Math.max(0, Math.min(slice.length, row.account.data.length - slice.offset))
        : row.account.data.length;
      budget.charge(ACCOUNT_JSON_OVERHEAD + base64Length(length));
      rows.push(row);
    }
    call.budget.charge(call.budget.remaining - budget.remaining);
    return rows;
  }

  private getTokenAccountBalance(p: RpcParams): unknown {
    const key = pubkeyParam(required(p, 0, 'pubkey'));
    configParam(p, 1, this.bank.slot);
    const account = this.ledger.getAccount(key.toBuffer());
    if (!account || !isTokenAccount(account)) throw RpcError.invalidParam('not a Token account');
    const token = decodeTokenAccount(account.data);
    const mint = this.mint(token.mint);
    return withContext(this.bank, uiTokenAmount(token.amount, mint.decimals));
  }

  private getTokenAccountsByOwner(p: RpcParams, call: RpcCall): unknown {
    const owner = pubkeyParam(required(p, 0, 'owner'));
    const selector = required(p, 1, 'mint or programId') as { mint?: unknown; programId?: unknown };
    if (typeof selector !== 'object' || selector === null) {
      throw RpcError.invalidParams('expected {"mint": ...} or {"programId": ...}');
    }
    const config = configParam(p, 2, this.bank.slot);
    const encoding = encodingParam(config.encoding, 'binary');
    const slice = dataSliceParam(config.dataSlice);
    const filters: AccountFilter[] = [
      { dataSize: TOKEN_ACCOUNT_SIZE },
      { memcmp: { offset: 32, bytes: owner.toBuffer() } },
    ];
    if (selector.mint !== undefined) {
      const mint = pubkeyParam(selector.mint);
      this.mint(mint);
      filters.push({ memcmp: { offset: 0, bytes: mint.toBuffer() } });
    } else if (selector.programId !== undefined) {
      if (!pubkeyParam(selector.programId).equals(TOKEN_PROGRAM_ID)) {
        throw RpcError.invalidParam('unrecognized Token program id');
      }
    } else {
      throw RpcError.invalidParams('expected {"mint": ...} or {"programId": ...}');
    }
    const values = this.scan(TOKEN_PROGRAM_ID.toBuffer(), filters, slice, call).map((row) => ({
      account: this.encode(row.account, encoding, slice),
      pubkey: bs58.encode(row.pubkey),
    }));
    return withContext(this.bank, values);
  }

  private encode(
    account: StoredAccount,
    encoding: AccountEncoding,
    slice?: { offset: number; length: number },
    budget?: ResponseBudget,
  ) {
    return encodeAccount(account, encoding, slice, (mint) => this.mintDecimals(mint), budget);
  }

  private mintDecimals(mint: PublicKey): number | null {
    const account = this.ledger.getAccount(mint.toBuffer());
    if (
      !account ||
      account.data.length !== MINT_SIZE ||
      !account.owner.equals(TOKEN_PROGRAM_ID.toBuffer())
    ) {
      return null;
    }
    return decodeMint(account.data).decimals;
  }

  private mint(key: PublicKey) {
    const account = this.ledger.getAccount(key.toBuffer());
    if (
      !account ||
      account.data.length !== MINT_SIZE ||
      !account.owner.equals(TOKEN_PROGRAM_ID.toBuffer())
    ) {
      throw RpcError.invalidParam('could not find mint');
    }
    return decodeMint(account.data);
  }
}

/** Agave's answer when a scan passes its limit, with what to do about it. */
function scanAborted(why: string): RpcError {
  return new RpcError(
    SolanaErrorCode.ScanError,
    `scan aborted: The accumulated scan results exceeded the limit (${why}); narrow the query ` +
      'with filters (dataSize, memcmp) or ask for a dataSlice',
  );
}

function isTokenAccount(account: StoredAccount): boolean {
  return (
    account.owner.equals(TOKEN_PROGRAM_ID.toBuffer()) && account.data.length === TOKEN_ACCOUNT_SIZE
  );
}
