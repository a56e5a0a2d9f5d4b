import { AccountFilter, StoredAccount } from '../ledger/ledger-store';
import { RpcError } from './rpc-error';
import { decodeBase58, decodeBase64, shown } from './rpc-params';

const MAX_FILTERS = 4;
const MAX_MEMCMP_BYTES = 128;

/** getProgramAccounts and programSubscribe filters: `{ dataSize }` and `{ memcmp: { offset, bytes, encoding? } }`. */
export function parseFilters(value: unknown): AccountFilter[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw RpcError.invalidParams('filters must be a list');
  if (value.length > MAX_FILTERS) {
    throw RpcError.invalidParams(`Too many filters provided; max ${MAX_FILTERS}`);
  }
  return value.map((f: unknown): AccountFilter => {
    const filter = f as {
      dataSize?: unknown;
      memcmp?: { offset?: unknown; bytes?: unknown; encoding?: unknown };
    };
    if (typeof filter !== 'object' || filter === null)
      throw RpcError.invalidParams('invalid filter');
    if (filter.dataSize !== undefined) {
      if (
        typeof filter.dataSize !== 'number' ||
        !Number.isSafeInteger(filter.dataSize) ||
        filter.dataSize < 0
      ) {
        throw RpcError.invalidParams('dataSize must be a non-negative integer');
      }
      return { dataSize: filter.dataSize };
    }
    const m = filter.memcmp;
    if (!m || typeof m !== 'object')
      throw RpcError.invalidParams('unknown filter: expected dataSize or memcmp');
    if (typeof m.offset !== 'number' || !Number.isSafeInteger(m.offset) || m.offset < 0) {
      throw RpcError.invalidParams('memcmp offset must be a non-negative integer');
    }
    if (typeof m.bytes !== 'string') throw RpcError.invalidParams('memcmp bytes must be a string');
    const encoding = m.encoding ?? 'base58';
    if (encoding !== 'base58' && encoding !== 'base64') {
      throw RpcError.invalidParams(`unknown memcmp encoding \`${shown(encoding)}\``);
    }
    const bytes = encoding === 'base58' ? decodeBase58(m.bytes) : decodeBase64(m.bytes);
    if (bytes.length > MAX_MEMCMP_BYTES) throw RpcError.invalidParam('filter bytes too large');
    return { memcmp: { offset: m.offset, bytes } };
  });
}

/**
 * Whether an account passes every filter, as the ledger's scan decides in SQL: `dataSize` is
 * the exact data length, `memcmp` the bytes at the offset (an account too short fails).
 */
export function accountMatches(account: StoredAccount, filters: readonly AccountFilter[]): boolean {
  return filters.every((f) => {
    if ('dataSize' in f) return account.data.length === f.dataSize;
    const { offset, bytes } = f.memcmp;
    if (bytes.length === 0) return true; // as SQLite's substr compare
    if (offset + bytes.length > account.data.length) return false;
    return account.data.subarray(offset, offset + bytes.length).equals(bytes);
  });
}
