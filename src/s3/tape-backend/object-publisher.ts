import { Injectable } from '@nestjs/common';
import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { MAX_NAME_METADATA_BYTES, NameRecord, TrackKind } from '../../chain/account-layouts';
import { ChainReader } from '../../chain/chain-reader';
import { ChainWriter } from '../../chain/chain-writer';
import { GatewayIdentity } from '../../chain/gateway-identity';
import { TapeInstructions } from '../../chain/tape-instructions';
import { KeyBalance } from '../../chain/key-balance/key-balance';
import { fitsAlone } from '../../chain/transaction-packer';
import {
  S3BackendAccessDeniedError,
  S3BackendError,
  S3BackendNoSuchKeyError,
  S3DeleteOutcome,
} from '../s3-backend';
import { S3Error } from '../s3-error';
import { chainWriteError, TapeWriteFailedError } from './chain-write-errors';
import { ObjectWriteLocks } from './object-write-locks';

/** The track an object name is to point at, already held by the track store. */
export interface StoredTrack {
  commitment: Buffer;
  /** The whole object's size (for a manifest track too, as the chain records it). */
  size: number;
  kind: TrackKind;
}

export interface PublishedName {
  commitment: Buffer;
  lastModified: Date;
}

/**
 * Checked against the name's current record while its write lock is held (conditional writes:
 * no other write of the name can land between the check and the write); throws to refuse.
 */
export type NamePrecondition = (current: NameRecord | null) => void;

/** RemoveName transactions in flight at once for a large DeleteObjects. */
const REMOVE_CONCURRENCY = 8;

/**
 * The chain side of S3 writes, signed by the gateway's key as the tape's delegate (and paid by
 * it). The gateway is also the storage authority, and it holds the bytes before it writes, so
 * one transaction does WriteTrack + CertifyTrack + SetName: an object appears whole or not at
 * all, and a write costs one confirmation instead of three.
 */
@Injectable()
export class ObjectPublisher {
  constructor(
    private readonly chain: ChainReader,
    private readonly writer: ChainWriter,
    private readonly ix: TapeInstructions,
    private readonly identity: GatewayIdentity,
    /** Names' write locks: this process's, or every writer's (replicas). */
    readonly locks: ObjectWriteLocks,
    private readonly balance: KeyBalance,
  ) {}

  /**
   * Refuses, before any byte is received, a name whose SetName cannot fit in a transaction
   * (names near the 1024-byte limit with a long content type), and metadata (the name's tail,
   * as long as it will be) that the program or one transaction cannot hold with the name.
   */
  assertNameFits(tape: PublicKey, name: string, contentType: string, metadata?: Buffer): void {
    const fits = (tail?: Buffer) =>
      fitsAlone(
        this.placeholderSetName(tape, name, contentType, tail),
        this.key,
        this.writer.packing,
      );
    if (!fits()) {
      throw new S3BackendAccessDeniedError(
        `the name is too long to publish in one transaction (${Buffer.byteLength(name)} bytes)`,
      );
    }
    const bytes = metadata?.length ?? 0;
    if (bytes > MAX_NAME_METADATA_BYTES || (bytes > 0 && !fits(metadata))) {
      throw new S3Error(
        'MetadataTooLarge',
        `the object's headers, x-amz-meta-* and checksum take ${bytes} bytes, more than are kept ` +
          `with a ${Buffer.byteLength(name)}-byte name (at most ${MAX_NAME_METADATA_BYTES} bytes, ` +
          'and name + metadata must fit one transaction: see docs/s3.md, "Metadata and checksums")',
      );
    }
  }

  private placeholderSetName(
    tape: PublicKey,
    name: string,
    contentType: string,
    metadata?: Buffer,
  ): TransactionInstruction {
    return this.ix.setName({
      payer: this.key,
      signer: this.key,
      tape,
      name,
      track: this.ix.pdas.track(tape, Buffer.alloc(32)),
      contentType,
      previousTrack: this.ix.pdas.track(tape, Buffer.alloc(32, 1)),
      metadata,
    });
  }

  /** The track account an object with this commitment is published as on this tape. */
  trackAddress(tape: PublicKey, commitment: Buffer): PublicKey {
    return this.ix.pdas.track(tape, commitment);
  }

  /** Points `name` at `track` (registering and certifying the track in the same transaction). */
  async publish(
    tape: PublicKey,
    name: string,
    track: StoredTrack,
    contentType: string,
    precondition?: NamePrecondition,
    metadata?: Buffer,
  ): Promise<PublishedName> {
    return this.locks.run([lockKey(tape, name)], async () => {
      const [current] = await this.chain.getNames(tape, [name]);
      precondition?.(current);
      const address = this.ix.pdas.track(tape, track.commitment);
      await this.send([
        this.ix.writeTrack({
          payer: this.key,
          signer: this.key,
          tape,
          commitment: track.commitment,
          size: track.size,
          kind: track.kind,
          contentType,
        }),
        this.ix.certifyTrack({ storageAuthority: this.key, track: address }),
        this.setName(tape, name, address, contentType, current, metadata),
      ]);
      return { commitment: track.commitment, lastModified: await this.now() };
    });
  }

  /**
   * Points `destination` at the track `source` names (no bytes move: tracks are shared), with
   * `contentType`, or the source's when undefined (S3's COPY directive). The destination's
   * metadata is `metadata` of the source's, read under the lock (the source's own by default).
   */
  async copy(
    tape: PublicKey,
    source: string,
    destination: string,
    contentType: string | undefined,
    precondition?: NamePrecondition,
    metadata: (source: NameRecord) => Buffer | undefined = (from) => from.metadata,
  ): Promise<PublishedName> {
    return this.locks.run([lockKey(tape, source), lockKey(tape, destination)], async () => {
      const [from, to] = await this.chain.getNames(tape, [source, destination]);
      if (!from) throw new S3BackendNoSuchKeyError(source);
      precondition?.(to);
      const type = contentType ?? from.contentType;
      await this.send([this.setName(tape, destination, from.track, type, to, metadata(from))]);
      return { commitment: from.commitment, lastModified: await this.now() };
    });
  }

  /** RemoveName for each name that exists; an absent name counts as removed (S3's rule). */
  async remove(tape: PublicKey, names: string[]): Promise<S3DeleteOutcome[]> {
    const unique = [...new Set(names)];
    return this.locks.run(
      unique.map((n) => lockKey(tape, n)),
      async () => {
        const records = await this.chain.getNames(tape, unique);
        const instructions = records.flatMap((record, i) =>
          record
            ? [
                this.ix.removeName({
                  receiver: this.key,
                  signer: this.key,
                  tape,
                  name: unique[i],
                  track: record.track,
                }),
              ]
            : [],
        );
        try {
          await this.send(instructions, true);
          return names.map((key) => ({ key }));
        } catch (error) {
          // Some transactions may have landed: the names still there are the ones that failed.
          const after = await this.chain.getNames(tape, unique).catch(() => records);
          const failed = new Set(unique.filter((_, i) => after[i] !== null));
          const reason = chainWriteError(error, this.key.toBase58());
          const typed =
            reason instanceof S3BackendError ? reason : new TapeWriteFailedError(reason.message);
          return names.map((key) => (failed.has(key) ? { key, error: typed } : { key }));
        }
      },
    );
  }

  private setName(
    tape: PublicKey,
    name: string,
    track: PublicKey,
    contentType: string,
    current: NameRecord | null,
    metadata?: Buffer,
  ): TransactionInstruction {
    return this.ix.setName({
      payer: this.key,
      signer: this.key,
      tape,
      name,
      track,
      contentType,
      previousTrack: current?.track,
      metadata,
    });
  }

  private async send(instructions: TransactionInstruction[], parallel = false): Promise<void> {
    try {
      await this.writer.send(
        instructions,
        [this.identity.keypair],
        parallel ? { ordered: false, concurrency: REMOVE_CONCURRENCY } : {},
      );
    } catch (error) {
      throw chainWriteError(await this.balance.explain(error), this.key.toBase58());
    }
  }

  /** The chain's clock (what `updatedAt` of the name records), to the second. */
  private async now(): Promise<Date> {
    return new Date((await this.chain.chainTime()) * 1000);
  }

  private get key(): PublicKey {
    return this.identity.publicKey;
  }
}

function lockKey(tape: PublicKey, name: string): string {
  return `${tape.toBase58()}/${name}`;
}
