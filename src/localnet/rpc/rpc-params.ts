import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { RpcError, SolanaErrorCode } from './rpc-error';

const COMMITMENTS = new Set([
  'processed',
  'confirmed',
  'finalized',
  'recent',
  'single',
  'singleGossip',
  'root',
  'max',
]);

export type RpcParams = unknown[];

/** JSON-RPC params as a positional array (Solana accepts nothing else; absent = none). */
export function positional(params: unknown): RpcParams {
  if (params === undefined || params === null) return [];
  if (!Array.isArray(params))
    throw RpcError.invalidParams('invalid type: map, expected a sequence');
  return params;
}

export function required(params: RpcParams, index: number, what: string): unknown {
  if (params.length <= index || params[index] === undefined) {
    throw RpcError.invalidParams(`missing field \`${what}\``);
  }
  return params[index];
}

export function stringParam(value: unknown, what: string): string {
  if (typeof value !== 'string')
    throw RpcError.invalidParams(`invalid type: expected a string for ${what}`);
  return value;
}

export function pubkeyParam(value: unknown): PublicKey {
  if (typeof value !== 'string')
    throw RpcError.invalidParams('invalid type: expected a base58 public key');
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(value);
  } catch {
    throw RpcError.invalidParam('Invalid');
  }
  if (bytes.length !== 32) throw RpcError.invalidParam('WrongSize');
  return new PublicKey(bytes);
}

export function signatureParam(value: unknown): Buffer {
  if (typeof value !== 'string')
    throw RpcError.invalidParams('invalid type: expected a base58 signature');
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(value);
  } catch {
    throw RpcError.invalidParam('Invalid');
  }
  if (bytes.length !== 64) throw RpcError.invalidParam('Invalid');
  return Buffer.from(bytes);
}

export function unsignedParam(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw RpcError.invalidParams(`invalid value for ${what}: expected a non-negative integer`);
  }
  return value;
}

export interface CommonConfig {
  commitment?: string;
  minContextSlot?: number;
  [key: string]: unknown;
}

/**
 * The optional config object at `index`: commitment accepted (every level is the same on a
 * single-node network whose commits are final), `minContextSlot` enforced.
 */
export function configParam(params: RpcParams, index: number, currentSlot: number): CommonConfig {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw RpcError.invalidParams('invalid type: expected a config map');
  }
  const config = value as CommonConfig;
  if (config.commitment !== undefined && !COMMITMENTS.has(String(config.commitment))) {
    throw RpcError.invalidParams(`unknown variant \`${String(config.commitment)}\` for commitment`);
  }
  if (config.minContextSlot !== undefined) {
    const min = unsignedParam(config.minContextSlot, 'minContextSlot');
    if (min > currentSlot) {
      throw new RpcError(
        SolanaErrorCode.MinContextSlotNotReached,
        'Minimum context slot has not been reached',
        {
          contextSlot: currentSlot,
        },
      );
    }
  }
  return config;
}

/** Strict base64 (Node's decoder silently skips bad characters; Solana's does not). */
export function decodeBase64(text: string): Buffer {
  const bad = /[^A-Za-z0-9+/=]/.exec(text);
  if (bad) {
    throw RpcError.invalidParamsRaw(
      `invalid base64 encoding: InvalidByte(${bad.index}, ${text.charCodeAt(bad.index)})`,
    );
  }
  if (text.length % 4 !== 0 || /=[^=]/.test(text) || /={3,}$/.test(text)) {
    throw RpcError.invalidParamsRaw('invalid base64 encoding: InvalidLength');
  }
  return Buffer.from(text, 'base64');
}

export function decodeBase58(text: string): Buffer {
  try {
    return Buffer.from(bs58.decode(text));
  } catch (err) {
    throw RpcError.invalidParamsRaw(`invalid base58 encoding: ${(err as Error).message}`);
  }
}

/** A client's value quoted in an error message. */
export function shown(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
}
