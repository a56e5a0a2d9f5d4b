import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { TapeRecord } from '../../chain/account-layouts';
import { ChainReader } from '../../chain/chain-reader';
import { GatewayIdentity } from '../../chain/gateway-identity';
import { addressFromLabel, labelFromAddress } from '../../chain/tape-label';
import { KeyBalance } from '../../chain/key-balance/key-balance';
import {
  S3BackendAccessDeniedError,
  S3BackendInsufficientCapacityError,
  S3BackendTapeExpiredError,
  S3Bucket,
} from '../s3-backend';
import { chainWriteError, notDelegatedMessage } from './chain-write-errors';

/** A bucket resolved to its tape, with the record as read from the chain. */
export interface TapeBucket {
  bucket: S3Bucket;
  address: PublicKey;
  record: TapeRecord;
}

/**
 * Every S3 request resolves its bucket (label -> tape account); a sync sends hundreds of requests
 * a second, so bucket lookups are cached briefly; a write is refused only on a fresh read.
 */
const LOOKUP_CACHE_MS = 2000;

@Injectable()
export class TapeDirectory {
  private readonly cache = new Map<string, { value: TapeBucket | null; at: number }>();

  constructor(
    private readonly chain: ChainReader,
    private readonly identity: GatewayIdentity,
    private readonly balance: KeyBalance,
  ) {}

  get gatewayKey(): string {
    return this.identity.publicKey.toBase58();
  }

  /** The tape whose label is `label`, or null (not a label, or no such tape). */
  async findByLabel(label: string): Promise<TapeBucket | null> {
    const address = addressFromLabel(label);
    return address ? this.find(address) : null;
  }

  async find(tapeAddress: string): Promise<TapeBucket | null> {
    const cached = this.cache.get(tapeAddress);
    if (cached && Date.now() - cached.at < LOOKUP_CACHE_MS) return cached.value;
    return this.read(tapeAddress);
  }

  /** Reads and refuses an expired tape: reads of a tape follow its site (gone once expired). */
  async readable(bucket: S3Bucket): Promise<TapeBucket> {
    const tape = await this.find(bucket.tapeAddress);
    if (!tape) throw new S3BackendAccessDeniedError('the tape no longer exists');
    await this.assertActive(tape.record);
    return tape;
  }

  /**
   * The tape, checked for a write of `adding` bytes: refused when it is expired, not delegated
   * to this gateway, or too full for the bytes. The check uses the record the request's bucket
   * lookup just read (at most LOOKUP_CACHE_MS old); a refusal is confirmed on a fresh read, so an
   * owner who has just delegated or resized is never turned away by a stale record. The program
   * checks all of this again when the write lands. Last, a gateway whose key cannot pay for
   * the transaction refuses at once, naming the key (the write would fail on chain anyway).
   */
  async writable(bucket: S3Bucket, adding = 0): Promise<TapeBucket> {
    const tape = await this.writableTape(bucket, adding);
    await this.balance.assertCanPay().catch((err: unknown) => {
      throw chainWriteError(err, this.gatewayKey);
    });
    return tape;
  }

  private async writableTape(bucket: S3Bucket, adding: number): Promise<TapeBucket> {
    const cached = await this.find(bucket.tapeAddress);
    if (cached && (await this.writeRefusal(cached, adding)) === null) return cached;
    const fresh = await this.read(bucket.tapeAddress);
    if (!fresh) throw new S3BackendAccessDeniedError('the tape no longer exists');
    const refusal = await this.writeRefusal(fresh, adding);
    if (refusal) throw refusal;
    return fresh;
  }

  private async writeRefusal(tape: TapeBucket, adding: number): Promise<Error | null> {
    try {
      await this.assertActive(tape.record);
      if (!this.identity.isWriter) {
        // A reader's key is a throwaway (docs/operator.md, "Scaling out"): say so, not "delegate".
        throw new S3BackendAccessDeniedError(
          'this gateway is a reader: it holds no key and takes no writes; send writes to the writer gateway',
        );
      }
      if (!tape.record.delegate?.equals(this.identity.publicKey)) {
        throw new S3BackendAccessDeniedError(notDelegatedMessage(this.gatewayKey));
      }
      assertRoom(tape.record, adding);
      return null;
    } catch (error) {
      return error as Error;
    }
  }

  private async assertActive(record: TapeRecord): Promise<void> {
    const epoch = await this.chain.currentEpoch();
    if (epoch >= record.expiryEpoch) {
      throw new S3BackendTapeExpiredError(`the reservation ended at epoch ${record.expiryEpoch}`);
    }
  }

  private async read(tapeAddress: string): Promise<TapeBucket | null> {
    const address = new PublicKey(tapeAddress);
    const record = await this.chain.getTape(address);
    const value: TapeBucket | null = record
      ? {
          address,
          record,
          bucket: {
            name: labelFromAddress(address),
            tapeAddress,
            createdAt: new Date(record.createdAt * 1000),
          },
        }
      : null;
    this.cache.set(tapeAddress, { value, at: Date.now() });
    if (this.cache.size > 10_000) this.cache.delete(this.cache.keys().next().value!);
    return value;
  }
}

/** Room left beside the kept versions' bytes. */
export function assertRoom(record: TapeRecord, adding: number): void {
  const taken = record.keptBytes;
  const free = Math.max(0, record.capacity - taken);
  if (adding > free) {
    throw new S3BackendInsufficientCapacityError(
      `${adding} bytes do not fit in the ${free} bytes free (${taken} of ${record.capacity} used)`,
    );
  }
}
