import { Bank } from '../bank/bank';
import { ResponseBudget } from './response-budget';
import { RpcParams } from './rpc-params';

/** What a handler knows about the call besides its params. */
export interface RpcCall {
  /** The peer address of the connection (no proxy is trusted in front of the local network). */
  clientIp: string;
  /** Response bytes this request may still produce: charge before encoding large data. */
  budget: ResponseBudget;
}

export type RpcHandler = (params: RpcParams, call: RpcCall) => unknown;
export type RpcHandlers = Record<string, RpcHandler>;

/** The Solana version the node reports (getVersion) and puts in every response context. */
export const SOLANA_CORE_VERSION = '1.18.26';
export const FEATURE_SET = 3241752014;

/** `{ context: { slot }, value }`, the RpcResponse wrapper of Solana's context methods. */
export function withContext(bank: Bank, value: unknown): unknown {
  return { context: { apiVersion: SOLANA_CORE_VERSION, slot: bank.slot }, value };
}
