import {
  PACKET_DATA_SIZE,
  SanitizedTransaction,
  TransactionDecodeError,
} from '../transactions/sanitized-transaction';
import { RpcError } from './rpc-error';
import { decodeBase58, decodeBase64, shown } from './rpc-params';

const TYPE_NAME = 'solana_sdk::transaction::versioned::VersionedTransaction';
/** Longest text that can decode to 1232 bytes (Solana's MAX_BASE58_SIZE / MAX_BASE64_SIZE). */
const MAX_BASE58_SIZE = 1683;
const MAX_BASE64_SIZE = 1644;

export type WireEncoding = 'base58' | 'base64';

export function wireEncodingParam(value: unknown, fallback: WireEncoding = 'base58'): WireEncoding {
  if (value === undefined || value === null) return fallback;
  if (value === 'base58' || value === 'base64') return value;
  throw RpcError.invalidParams(
    `unsupported encoding: ${shown(value)}. Supported encodings: base58, base64`,
  );
}

/**
 * Decodes an encoded transaction the way Solana's RPC does, with its limits and error texts:
 * text size, then bytes, then the packet size, then deserialisation and sanitisation.
 */
export function decodeWireTransaction(text: unknown, encoding: WireEncoding): SanitizedTransaction {
  if (typeof text !== 'string')
    throw RpcError.invalidParams('invalid type: expected an encoded transaction string');
  const max = encoding === 'base58' ? MAX_BASE58_SIZE : MAX_BASE64_SIZE;
  if (text.length > max) {
    throw RpcError.invalidParamsRaw(
      `${encoding} encoded ${TYPE_NAME} too large: ${text.length} bytes (max: encoded/raw ${max}/${PACKET_DATA_SIZE})`,
    );
  }
  const raw = encoding === 'base58' ? decodeBase58(text) : decodeBase64(text);
  return parseRawTransaction(raw);
}

export function parseRawTransaction(raw: Buffer): SanitizedTransaction {
  try {
    return SanitizedTransaction.parse(raw);
  } catch (err) {
    if (err instanceof TransactionDecodeError) throw RpcError.invalidParamsRaw(err.message);
    throw err;
  }
}
