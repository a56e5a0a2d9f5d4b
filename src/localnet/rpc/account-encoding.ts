import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { StoredAccount } from '../ledger/ledger-store';
import { ACCOUNT_JSON_OVERHEAD, base64Length, ResponseBudget } from './response-budget';
import { RpcError } from './rpc-error';
import { shown } from './rpc-params';
import { parseTokenProgramAccount } from './token-account-parsing';

export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'jsonParsed';

export interface DataSlice {
  offset: number;
  length: number;
}

/** Base58 of the handful of owners (programs) costs once, not once per account. */
const ownerNames = new Map<string, string>();

function ownerName(owner: Buffer): string {
  const id = owner.toString('base64');
  let name = ownerNames.get(id);
  if (!name) {
    name = bs58.encode(owner);
    if (ownerNames.size > 1024) ownerNames.clear();
    ownerNames.set(id, name);
  }
  return name;
}

export function encodingParam(value: unknown, fallback: AccountEncoding): AccountEncoding {
  if (value === undefined || value === null) return fallback;
  switch (value) {
    case 'binary':
    case 'base58':
    case 'base64':
    case 'jsonParsed':
      return value as AccountEncoding;
    case 'base64+zstd':
      throw RpcError.invalidParams('base64+zstd encoding is not supported by this local network');
    default:
      throw RpcError.invalidParams(`unknown variant \`${shown(value)}\` for encoding`);
  }
}

export function dataSliceParam(value: unknown): DataSlice | undefined {
  if (value === undefined || value === null) return undefined;
  const v = value as Partial<DataSlice>;
  if (
    typeof v !== 'object' ||
    !Number.isSafeInteger(v.offset) ||
    !Number.isSafeInteger(v.length) ||
    (v.offset as number) < 0 ||
    (v.length as number) < 0
  ) {
    throw RpcError.invalidParams('dataSlice needs non-negative integer offset and length');
  }
  return { offset: v.offset as number, length: v.length as number };
}

/**
 * An account in Solana's UI shape: `data` as `[text, encoding]` (or a bare base58 string for the
 * legacy `binary` default, or parsed JSON for SPL Token accounts with `jsonParsed`, falling back to
 * base64 for everything else, as Solana does). `rentEpoch` is a u64 and stays one in the JSON text.
 * The encoded size is charged to `budget` before any text is built.
 */
export function encodeAccount(
  account: StoredAccount,
  encoding: AccountEncoding,
  slice?: DataSlice,
  mintDecimals?: (mint: PublicKey) => number | null,
  budget?: ResponseBudget,
): Record<string, unknown> {
  const base = {
    executable: account.executable,
    lamports: account.lamports,
    owner: ownerName(account.owner),
    rentEpoch: account.rentEpoch,
    space: account.data.length,
  };
  if (encoding === 'jsonParsed' && !slice && mintDecimals) {
    const parsed = parseTokenProgramAccount(account, mintDecimals);
    if (parsed) {
      // A parsed mint or token account is a few hundred bytes of JSON.
      budget?.charge(4 * ACCOUNT_JSON_OVERHEAD);
      return { data: parsed, ...base };
    }
  }
  const data = slice
    ? account.data.subarray(slice.offset, slice.offset + slice.length)
    : account.data;
  budget?.charge(ACCOUNT_JSON_OVERHEAD + base64Length(data.length));
  switch (encoding) {
    case 'binary':
      return { data: base58Data(data), ...base };
    case 'base58':
      return { data: [base58Data(data), 'base58'], ...base };
    case 'base64':
    case 'jsonParsed':
      return { data: [data.toString('base64'), 'base64'], ...base };
  }
}

/** Solana refuses base58 for more than 128 bytes: base58 is quadratic. */
function base58Data(data: Buffer): string {
  if (data.length > 128) {
    throw RpcError.invalidRequest(
      'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.',
    );
  }
  return bs58.encode(data);
}
