import { VersionedMessage } from '@solana/web3.js';
import bs58 from 'bs58';
import { Bank } from '../bank/bank';
import { LedgerStore } from '../ledger/ledger-store';
import { SignatureVerifier } from '../transactions/signature-verifier';
import { SanitizedTransaction } from '../transactions/sanitized-transaction';
import { ExecutionResult } from '../bank/execution';
import { transactionFee } from '../transactions/transaction-fee';
import { describeTransactionError } from '../transactions/transaction-error';
import { encodeAccount, encodingParam } from './account-encoding';
import { RpcError, SolanaErrorCode } from './rpc-error';
import { ResponseBudget } from './response-budget';
import { RpcCall, RpcHandlers, withContext } from './rpc-handler';
import {
  configParam,
  decodeBase64,
  pubkeyParam,
  required,
  RpcParams,
  signatureParam,
} from './rpc-params';
import { decodeWireTransaction, parseRawTransaction, wireEncodingParam } from './transaction-wire';

const MAX_SIGNATURE_STATUSES = 256;

/** sendTransaction, simulateTransaction, getSignatureStatuses, getFeeForMessage. */
export class TransactionMethods {
  constructor(
    private readonly bank: Bank,
    private readonly ledger: LedgerStore,
    private readonly verifier: SignatureVerifier,
    private readonly onDropped: (signature: string, reason: string) => void,
  ) {}

  handlers(): RpcHandlers {
    return {
      sendTransaction: (p) => this.sendTransaction(p),
      simulateTransaction: (p, call) => this.simulateTransaction(p, call),
      getSignatureStatuses: (p) => this.getSignatureStatuses(p),
      getFeeForMessage: (p) => this.getFeeForMessage(p),
    };
  }

  /**
   * With preflight (the default) the transaction runs once: if it fails, nothing is kept and the
   * caller gets -32002 with the error and logs, as a failed preflight simulation; if it succeeds,
   * it is committed. With `skipPreflight` a failed transaction is committed with its error and its
   * fee charged; one that fails the signature, blockhash or fee-payer checks is dropped (Solana
   * never lands those) and the signature is still returned.
   */
  private sendTransaction(p: RpcParams): string {
    const config = configParam(p, 1, this.bank.slot);
    const tx = decodeWireTransaction(
      required(p, 0, 'transaction'),
      wireEncodingParam(config.encoding),
    );
    if (config.skipPreflight === true) {
      if (!this.verifier.verifyAll(tx)) {
        this.onDropped(tx.signature, 'signature verification failed');
        return tx.signature;
      }
      const { result, committed } = this.bank.execute(tx, true);
      if (!committed && result.err)
        this.onDropped(tx.signature, describeTransactionError(result.err));
      return tx.signature;
    }
    this.verifyOrThrow(tx);
    const { result } = this.bank.execute(tx, false);
    if (result.err !== null) {
      throw new RpcError(
        SolanaErrorCode.SendTransactionPreflightFailure,
        `Transaction simulation failed: ${describeTransactionError(result.err)}`,
        simulationValue(result, null),
      );
    }
    return tx.signature;
  }

  private simulateTransaction(p: RpcParams, call: RpcCall): unknown {
    const config = configParam(p, 1, this.bank.slot);
    if (config.sigVerify === true && config.replaceRecentBlockhash === true) {
      throw RpcError.invalidParams('sigVerify may not be used with replaceRecentBlockhash');
    }
    let tx = decodeWireTransaction(
      required(p, 0, 'transaction'),
      wireEncodingParam(config.encoding),
    );
    let replacement: unknown = null;
    if (config.replaceRecentBlockhash === true) {
      tx = parseRawTransaction(withBlockhash(tx, this.bank.latestBlockhash));
      replacement = {
        blockhash: this.bank.latestBlockhash,
        lastValidBlockHeight: this.bank.lastValidBlockHeight,
      };
    }
    if (config.sigVerify === true) this.verifyOrThrow(tx);
    const result = this.bank.simulate(tx);
    const value = simulationValue(result, replacement);
    const accounts = config.accounts as { addresses?: unknown; encoding?: unknown } | undefined;
    if (accounts && typeof accounts === 'object') {
      value.accounts = this.simulatedAccounts(tx, result, accounts, call.budget);
    }
    return withContext(this.bank, value);
  }

  private simulatedAccounts(
    tx: SanitizedTransaction,
    result: ExecutionResult,
    request: { addresses?: unknown; encoding?: unknown },
    budget: ResponseBudget,
  ): unknown[] {
    if (!Array.isArray(request.addresses))
      throw RpcError.invalidParams('accounts.addresses must be a list');
    // Agave's bound: no more addresses than the transaction has accounts.
    const max = tx.accountKeys.length;
    if (request.addresses.length > max) {
      throw RpcError.invalidParams(`Too many accounts provided; max ${max}`);
    }
    const encoding = encodingParam(request.encoding, 'base64');
    if (encoding === 'binary' || encoding === 'base58') {
      throw RpcError.invalidParams('base58 encoding not supported');
    }
    return request.addresses.map((address) => {
      const key = pubkeyParam(address);
      const keyBytes = key.toBuffer();
      const loaded =
        result.err === null ? result.accounts.find((a) => a.pubkey.equals(keyBytes)) : undefined;
      const account = loaded ? loaded.account : this.ledger.getAccount(keyBytes);
      return account ? encodeAccount(account, encoding, undefined, undefined, budget) : null;
    });
  }

  private getSignatureStatuses(p: RpcParams): unknown {
    const signatures = required(p, 0, 'signatures');
    if (!Array.isArray(signatures))
      throw RpcError.invalidParams('invalid type: expected a list of signatures');
    if (signatures.length > MAX_SIGNATURE_STATUSES) {
      throw RpcError.invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
    }
    configParam(p, 1, this.bank.slot);
    const values = signatures.map((s) => {
      const status = this.ledger.getStatus(signatureParam(s));
      if (!status) return null;
      const err: unknown = status.err === null ? null : JSON.parse(status.err);
      // One node, durable commits, no forks: a processed transaction is final at once.
      return {
        confirmationStatus: 'finalized',
        confirmations: null,
        err,
        slot: status.slot,
        status: err === null ? { Ok: null } : { Err: err },
      };
    });
    return withContext(this.bank, values);
  }

  private getFeeForMessage(p: RpcParams): unknown {
    const text = required(p, 0, 'message');
    if (typeof text !== 'string')
      throw RpcError.invalidParams('invalid type: expected a base64 message');
    configParam(p, 1, this.bank.slot);
    let message: VersionedMessage;
    try {
      message = VersionedMessage.deserialize(decodeBase64(text));
    } catch (err) {
      if (err instanceof RpcError) throw err;
      throw RpcError.invalidParams(`failed to deserialize message: ${(err as Error).message}`);
    }
    const fee = this.bank.isBlockhashValid(message.recentBlockhash)
      ? transactionFee({
          header: message.header,
          accountKeys: message.staticAccountKeys,
          instructions: message.compiledInstructions,
        })
      : null;
    return withContext(this.bank, fee);
  }

  private verifyOrThrow(tx: SanitizedTransaction): void {
    if (!this.verifier.verifyAll(tx)) {
      throw new RpcError(
        SolanaErrorCode.TransactionSignatureVerificationFailure,
        'Transaction signature verification failure',
      );
    }
  }
}

/** Solana's `RpcSimulateTransactionResult`. */
function simulationValue(
  result: ExecutionResult,
  replacementBlockhash: unknown,
): Record<string, unknown> {
  return {
    accounts: null,
    err: result.err,
    innerInstructions: null,
    logs: result.logs,
    replacementBlockhash,
    returnData: null,
    unitsConsumed: result.unitsConsumed,
  };
}

/** The wire bytes with another recent blockhash (signatures no longer match; sigVerify is off). */
function withBlockhash(tx: SanitizedTransaction, blockhash: string): Buffer {
  const raw = Buffer.from(tx.raw);
  const messageStart = raw.length - tx.messageBytes.length;
  const keys = tx.accountKeys.length;
  const prefix = (tx.version === 0 ? 1 : 0) + 3 + (keys < 0x80 ? 1 : 2) + keys * 32;
  Buffer.from(bs58.decode(blockhash)).copy(raw, messageStart + prefix);
  return raw;
}
