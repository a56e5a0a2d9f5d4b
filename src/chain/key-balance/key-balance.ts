import { Logger } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { isInsufficientFunds } from '../chain-error';
import { GatewayIdentity } from '../gateway-identity';
import { BalanceSource } from './balance-source';
import { KeyBalanceLimits, solText } from './key-balance-limits';
import { StorageAuthorityUnfundedError } from './key-unfunded-error';

/**
 * A key that is short is read again this soon: the first write or /healthz after an operator
 * funds it sees the money, with no restart and no wait for the next refresh.
 */
const SHORT_RECHECK_MS = 1000;

interface Reading {
  lamports: number;
  at: number;
}

/**
 * The storage-authority key's SOL balance, as the gateway's writes need it: read through a
 * port, remembered for `refreshMs` (for `SHORT_RECHECK_MS` while it is below the threshold),
 * one read at a time. It answers three questions: is the gateway degraded (/healthz), can the
 * next write be paid (uploads, S3 writes: refused at once instead of failing on chain and being
 * retried for minutes), and why a transaction was refused for want of funds. A reader gateway
 * has no key to fund: every answer is "fine".
 */
export class KeyBalance {
  private reading?: Reading;
  private pending?: Promise<number | undefined>;
  /** Whether the last reading was below the threshold; unset before the first. */
  private short?: boolean;
  private timer?: NodeJS.Timeout;
  private readonly logger = new Logger('key-balance');

  constructor(
    private readonly source: BalanceSource,
    private readonly identity: GatewayIdentity,
    readonly limits: KeyBalanceLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get key(): PublicKey {
    return this.identity.publicKey;
  }

  /** Only a writer pays for anything. */
  get applies(): boolean {
    return this.identity.isWriter;
  }

  /** The balance, read again when the remembered one is too old; undefined when unreadable. */
  async current(): Promise<number | undefined> {
    const r = this.reading;
    const maxAge =
      r && r.lamports < this.limits.thresholdLamports ? SHORT_RECHECK_MS : this.limits.refreshMs;
    if (r && this.now() - r.at < maxAge) return r.lamports;
    return this.refresh();
  }

  /** Reads the balance now (concurrent callers share the read). */
  refresh(): Promise<number | undefined> {
    this.pending ??= this.source
      .lamports(this.key)
      .then(
        (lamports) => {
          this.record(lamports);
          return lamports;
        },
        (err: unknown) => {
          // The chain's own health check says why; an unread balance refuses nothing.
          this.logger.debug(
            `balance of ${this.key.toBase58()} not read: ${(err as Error).message}`,
          );
          return undefined;
        },
      )
      .finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Why /healthz should say `degraded`, or null when the key can pay for the next hour. */
  async degradedReason(): Promise<string | null> {
    if (!this.applies) return null;
    const lamports = await this.current();
    return lamports !== undefined && lamports < this.limits.thresholdLamports
      ? this.shortText(lamports)
      : null;
  }

  /** Throws when the key cannot pay for one more transaction (checked before a write starts). */
  async assertCanPay(): Promise<void> {
    if (!this.applies) return;
    const lamports = await this.current();
    if (lamports !== undefined && lamports < this.limits.perTransactionLamports) {
      throw this.unfunded(lamports);
    }
  }

  /**
   * A write's failure as the caller should report it: a transaction refused for want of funds
   * (the balance moved since it was read, or rent was more than it held) becomes the refusal
   * naming the key, from a fresh reading; anything else is returned as it is.
   */
  async explain(err: unknown): Promise<unknown> {
    if (!isInsufficientFunds(err)) return err;
    const lamports = (await this.refresh()) ?? 0;
    return this.unfunded(lamports);
  }

  /** Reads every `refreshMs` so the metric stays fresh and a key running dry is logged. */
  start(): void {
    if (!this.applies || this.timer) return;
    this.timer = setInterval(() => void this.refresh(), this.limits.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private unfunded(lamports: number): StorageAuthorityUnfundedError {
    return new StorageAuthorityUnfundedError(
      this.key.toBase58(),
      lamports,
      this.limits.perTransactionLamports,
    );
  }

  private record(lamports: number): void {
    this.reading = { lamports, at: this.now() };
    const short = lamports < this.limits.thresholdLamports;
    if (short && this.short !== true) {
      this.logger.warn({
        event: 'key_balance_low',
        key: this.key.toBase58(),
        lamports,
        threshold_lamports: this.limits.thresholdLamports,
        msg: this.shortText(lamports),
      });
    } else if (!short && this.short === true) {
      this.logger.log({
        event: 'key_balance_ok',
        key: this.key.toBase58(),
        lamports,
        msg: `the storage-authority key ${this.key.toBase58()} is funded again: ${solText(lamports)} SOL`,
      });
    }
    this.short = short;
  }

  private shortText(lamports: number): string {
    const key = this.key.toBase58();
    const cannotPay =
      lamports < this.limits.perTransactionLamports
        ? '; it cannot pay for one transaction, so S3 writes are refused'
        : '';
    return (
      `the storage-authority key ${key} holds ${solText(lamports)} SOL, less than ` +
      `${solText(this.limits.thresholdLamports)} SOL (an hour of expected fees, ` +
      `gateway.key_balance)${cannotPay}: fund ${key}`
    );
  }
}
