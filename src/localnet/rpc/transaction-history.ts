import bs58 from 'bs58';
import { Bank } from '../bank/bank';
import { LedgerStore, TransactionRecord } from '../ledger/ledger-store';
import { SanitizedTransaction } from '../transactions/sanitized-transaction';
import { RpcError, SolanaErrorCode } from './rpc-error';
import { RpcHandlers } from './rpc-handler';
import {
  CommonConfig,
  configParam,
  required,
  RpcParams,
  shown,
  signatureParam,
} from './rpc-params';
import { parseRawTransaction } from './transaction-wire';

type TransactionEncoding = 'json' | 'jsonParsed' | 'base58' | 'base64';

/** getTransaction: a committed transaction with its status meta, in Solana's shapes. */
export class TransactionHistory {
  constructor(
    private readonly bank: Bank,
    private readonly ledger: LedgerStore,
  ) {}

  handlers(): RpcHandlers {
    return { getTransaction: (p) => this.getTransaction(p) };
  }

  private getTransaction(p: RpcParams): unknown {
    const signature = signatureParam(required(p, 0, 'signature'));
    // The second param is a config object, or (legacy form) the encoding itself.
    const config: CommonConfig =
      typeof p[1] === 'string' ? { encoding: p[1] } : configParam(p, 1, this.bank.slot);
    const encoding = transactionEncoding(config.encoding);
    const record = this.ledger.getTransaction(signature);
    if (!record) return null;
    const tx = parseRawTransaction(record.raw);
    const maxVersion = config.maxSupportedTransactionVersion;
    if (tx.version === 0 && (typeof maxVersion !== 'number' || maxVersion < 0)) {
      throw new RpcError(
        SolanaErrorCode.TransactionVersionNotSupported,
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
      );
    }
    const out: Record<string, unknown> = {
      blockTime: record.blockTime,
      meta: meta(record),
      slot: record.slot,
      transaction: encodeTransaction(tx, encoding),
    };
    if (maxVersion !== undefined) out.version = tx.version;
    return out;
  }
}

function transactionEncoding(value: unknown): TransactionEncoding {
  if (value === undefined || value === null) return 'json';
  if (value === 'json' || value === 'jsonParsed' || value === 'base58' || value === 'base64')
    return value;
  throw RpcError.invalidParams(`unknown variant \`${shown(value)}\` for encoding`);
}

function meta(record: TransactionRecord): Record<string, unknown> {
  const err: unknown = record.err === null ? null : JSON.parse(record.err);
  return {
    computeUnitsConsumed: record.unitsConsumed,
    err,
    fee: record.fee,
    innerInstructions: [],
    loadedAddresses: { readonly: [], writable: [] },
    logMessages: record.logs,
    postBalances: record.postBalances,
    postTokenBalances: [],
    preBalances: record.preBalances,
    preTokenBalances: [],
    rewards: [],
    status: err === null ? { Ok: null } : { Err: err },
  };
}

function encodeTransaction(tx: SanitizedTransaction, encoding: TransactionEncoding): unknown {
  if (encoding === 'base64') return [tx.raw.toString('base64'), 'base64'];
  if (encoding === 'base58') return [bs58.encode(tx.raw), 'base58'];
  const keys = tx.accountKeys.map((k) => k.toBase58());
  const invoked = new Set(tx.instructions.map((ix) => ix.programIdIndex));
  const message: Record<string, unknown> = {
    header: tx.header,
    recentBlockhash: tx.recentBlockhash,
  };
  if (encoding === 'json') {
    message.accountKeys = keys;
    message.instructions = tx.instructions.map((ix) => ({
      accounts: ix.accountIndexes,
      data: bs58.encode(ix.data),
      programIdIndex: ix.programIdIndex,
      stackHeight: null,
    }));
  } else {
    // jsonParsed: annotated keys; instructions stay "partially decoded" (ids and base58 data).
    message.accountKeys = keys.map((pubkey, i) => ({
      pubkey,
      signer: tx.isSigner(i),
      source: 'transaction',
      writable: tx.isWritableByHeader(i) && !invoked.has(i),
    }));
    message.instructions = tx.instructions.map((ix) => ({
      accounts: ix.accountIndexes.map((i) => keys[i]),
      data: bs58.encode(ix.data),
      programId: keys[ix.programIdIndex],
      stackHeight: null,
    }));
  }
  if (tx.version === 0) message.addressTableLookups = [];
  return { message, signatures: tx.signatures.map((s) => bs58.encode(s)) };
}
