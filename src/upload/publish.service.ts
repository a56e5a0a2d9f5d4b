import { Injectable } from '@nestjs/common';
import { PublicKey, Transaction } from '@solana/web3.js';
import { ALIAS_SLOTS, type TapeRecord } from '../chain/account-layouts';
import { currentVersion, isAliasName } from '../chain/tape-history';
import { ChainReader } from '../chain/chain-reader';
import { ChainRpc } from '../chain/chain-rpc';
import { ChainWriter } from '../chain/chain-writer';
import { GatewayIdentity } from '../chain/gateway-identity';
import { TapeInstructions } from '../chain/tape-instructions';
import { withComputeBudget } from '../chain/transaction-packer';
import { IntegrityError } from '../tracks/track-errors';
import { TrackStore } from '../tracks/track-store';
import { CertificationError, VersionCertifier } from '../versions/version-certifier';
import { CertificationGate } from './certification-gate';
import { CertifiedVersions } from './certified-versions';
import { KeptVersionReferences } from './kept-version-references';
import { publishErrors } from './publish-errors';
import { PublishBody } from './publish-request';
import { chainRead, isTapeWriter, requireActive, TapeWriterAccess } from './tape-writer-access';
import { SignedHeaders } from './upload-auth';
import { uploadErrors } from './upload-error';
import { requestMessage } from './version-request-auth';
import { VersionBaseTracks } from './version-base-tracks';
import { TableAfterPublish, tableAfterPublish, uniqueBytes } from './kept-set';
import type { TrackSizes } from '../versions/version-tracks';

/** What Publish will carry, once the gateway certified the version. */
export interface CertifiedPublish {
  root: Buffer;
  expectedSequence: number;
  /** The number the version gets: the tape's latest_version + 1. */
  version: number;
  versionBytes: number;
  /** Unique bytes of every version the tape keeps after this Publish (signed). */
  keptBytes: number;
  /** Bytes the version adds to the tape's current one (for display). */
  addedBytes: number;
  /** Published under this alias (the live version unchanged), or live. */
  alias?: string;
}

/** A version to certify: the tape (as read), the root and the compare-and-swap it asks for. */
interface PublishRequest {
  address: PublicKey;
  tape: TapeRecord;
  root: Buffer;
  expectedSequence: number;
  alias: string | undefined;
}

/** `POST /publish/{tape}`'s answer: the Publish transaction, signed by the storage authority only. */
export interface CosignedPublish {
  transaction: string;
  root: string;
  expected_sequence: number;
  version: number;
  version_bytes: number;
  kept_bytes: number;
  added_bytes: number;
  alias: string | null;
  last_valid_block_height: number;
}

/**
 * Publishing a version (docs/versions.md, "The pointer and Publish"): the gateway certifies it
 * from its own store against the tape's current version, then signs Publish as the storage
 * authority. A tenant's publisher gets the transaction partially signed and adds its own
 * signatures (`cosign`); the gateway's own writes (the S3 endpoint) sign and send it whole
 * (`publishOwn`).
 */
@Injectable()
export class PublishService {
  constructor(
    private readonly access: TapeWriterAccess,
    private readonly chain: ChainReader,
    private readonly rpc: ChainRpc,
    private readonly writer: ChainWriter,
    private readonly ix: TapeInstructions,
    private readonly identity: GatewayIdentity,
    private readonly certifier: VersionCertifier,
    private readonly bases: VersionBaseTracks,
    private readonly store: TrackStore,
    private readonly kept: KeptVersionReferences,
    private readonly gate: CertificationGate,
    private readonly certified: CertifiedVersions,
  ) {}

  async cosign(tapeText: string, headers: SignedHeaders, raw: Buffer): Promise<CosignedPublish> {
    const { address, tape, signer } = await this.access.authorize(tapeText, headers, (timestamp) =>
      requestMessage({ route: 'publish', tape: tapeText, body: raw, timestamp }),
    );
    const body = PublishBody.parse(raw);
    // The storage authority's signature must never make the gateway pay a tenant's fees.
    if (body.feePayer.equals(this.identity.publicKey)) {
      throw uploadErrors.forbidden("the fee payer cannot be the gateway's key");
    }
    const certified = await this.certify({
      address,
      tape,
      root: body.root,
      expectedSequence: body.expectedSequence,
      alias: body.alias,
    });
    const instructions = withComputeBudget(
      [this.publishInstruction(address, signer, certified)],
      this.writer.packing,
    ).transactionInstructions;
    const { blockhash, lastValidBlockHeight } = await chainRead(() =>
      this.rpc.call((c) => c.getLatestBlockhash(this.rpc.commitment)),
    );
    const tx = new Transaction({ feePayer: body.feePayer, blockhash, lastValidBlockHeight });
    tx.add(...instructions);
    tx.partialSign(this.identity.keypair);
    return {
      transaction: tx
        .serialize({ requireAllSignatures: false, verifySignatures: false })
        .toString('base64'),
      root: certified.root.toString('hex'),
      expected_sequence: certified.expectedSequence,
      version: certified.version,
      version_bytes: certified.versionBytes,
      kept_bytes: certified.keptBytes,
      added_bytes: certified.addedBytes,
      alias: certified.alias ?? null,
      last_valid_block_height: lastValidBlockHeight,
    };
  }

  /**
   * Certifies and publishes with the gateway's own keys: the tape's delegate (or authority) and
   * the storage authority are the gateway key, which also pays the fee. A lost compare-and-swap
   * rejects with VersionConflictError (the caller re-plans on the new current version).
   */
  async publishOwn(
    tapeAddress: PublicKey,
    root: Buffer,
    expectedSequence: number,
    alias?: string,
  ): Promise<CertifiedPublish & { signature: string }> {
    const tape = await chainRead(() => this.chain.getTape(tapeAddress));
    if (!tape) throw uploadErrors.notFound('no such tape on chain');
    const key = this.identity.publicKey;
    if (!isTapeWriter(tape, key)) {
      throw uploadErrors.forbidden(
        "the gateway's key is neither the tape's authority nor its delegate",
      );
    }
    await requireActive(this.chain, tape);
    const certified = await this.certify({
      address: tapeAddress,
      tape,
      root,
      expectedSequence,
      alias,
    });
    const [signature] = await this.writer.send(
      [this.publishInstruction(tapeAddress, key, certified)],
      [this.identity.keypair],
    );
    return { ...certified, signature };
  }

  /**
   * The checks Publish relies on the storage authority for, plus the program's own up front;
   * then the version's tracks are recorded under its version owner (and those of every other
   * version the tape keeps after it, when this store never recorded them), before anyone can
   * send the Publish, so the collector keeps them for as long as the tape keeps each version.
   */
  private certify(request: PublishRequest): Promise<CertifiedPublish> {
    return this.gate.run(request.address.toBase58(), () => this.certifyNow(request));
  }

  private async certifyNow({
    address,
    tape,
    root,
    expectedSequence,
    alias,
  }: PublishRequest): Promise<CertifiedPublish> {
    if (expectedSequence !== tape.sequence) {
      throw publishErrors.conflict(tape.sequence, expectedSequence);
    }
    if (alias !== undefined) checkAlias(tape, alias);
    const bytes = await this.store.storedSize(root);
    if (bytes === undefined) {
      throw publishErrors.notCertified('the version root is not held by the gateway');
    }
    const tapeKey = address.toBase58();
    const current = currentVersion(tape);
    // Kept versions whose tracks this gateway has not at hand: walked below, and their
    // references recorded (a version another writer certified is kept here from then on).
    const unknown = new Set(
      tape.history.filter((v) => !this.bases.known(v.root)).map((v) => v.root.toString('hex')),
    );
    // The current version's facts, when this gateway certified it: its nodes and checked
    // entries are not read again, its tracks are the base, its references are recorded already.
    const trusted =
      current === undefined
        ? undefined
        : this.certified.trusted(tapeKey, current.version, current.root);
    let base;
    let sizes;
    try {
      base =
        current === undefined
          ? undefined
          : (trusted?.tracks ?? (await this.bases.tracksOf(current.root)));
      sizes = await this.certifier.certify({ commitment: root, bytes }, base, trusted);
    } catch (err) {
      if (err instanceof CertificationError) throw publishErrors.notCertified(err.message);
      if (err instanceof IntegrityError) throw publishErrors.corrupt(err.message);
      throw err;
    }
    const after = tableAfterPublish(tape, root, sizes.versionBytes, alias);
    const keptBytes = await this.keptBytes(address, after, sizes.tracks, unknown);
    if (keptBytes > tape.capacity) throw publishErrors.capacity(tape.capacity, keptBytes);
    await this.kept.record(address, after.version, root, sizes.tracks, trusted?.tracks);
    this.bases.remember(root, sizes.tracks);
    this.certified.remember(tapeKey, after.version, sizes.facts);
    return {
      root,
      expectedSequence,
      version: after.version,
      versionBytes: sizes.versionBytes,
      keptBytes,
      addedBytes: sizes.addedBytes,
      alias,
    };
  }

  /**
   * Unique bytes of the versions kept after the Publish: the new one's tracks (just certified)
   * and each other kept version's, from the certifier's cache (versions this gateway certified)
   * or walked once. A walked version's references are recorded (claims only: a version another
   * writer certified is kept by this store from then on). A kept version whose root this store
   * does not hold counts its certified bytes whole (an upper bound: never less than its share).
   */
  private async keptBytes(
    address: PublicKey,
    after: TableAfterPublish,
    tracks: TrackSizes,
    unknown: ReadonlySet<string>,
  ): Promise<number> {
    const sets: TrackSizes[] = [tracks];
    let whole = 0;
    for (const kept of after.kept) {
      if (kept.version === after.version) continue;
      let found: TrackSizes;
      try {
        found = await this.bases.tracksOf(kept.root);
      } catch (err) {
        if (err instanceof IntegrityError) throw publishErrors.corrupt(err.message);
        whole += kept.bytes;
        continue;
      }
      if (unknown.has(kept.root.toString('hex'))) {
        await this.kept.refresh(address, kept.version, kept.root, found);
      }
      sets.push(found);
    }
    return uniqueBytes(sets, whole);
  }

  private publishInstruction(tape: PublicKey, signer: PublicKey, c: CertifiedPublish) {
    return this.ix.publish({
      signer,
      storageAuthority: this.identity.publicKey,
      tape,
      expectedSequence: c.expectedSequence,
      root: c.root,
      versionBytes: c.versionBytes,
      keptBytes: c.keptBytes,
      alias: c.alias,
    });
  }
}

/** The program's alias checks, up front (its errors would only come after signing). */
function checkAlias(tape: TapeRecord, alias: string): void {
  if (!isAliasName(alias)) {
    throw uploadErrors.badRequest(
      `"alias" must be 1 to 24 of a-z, 0-9 and inner hyphens, no "--", not v<number>`,
    );
  }
  const exists = tape.aliases.some((a) => a.name === alias);
  if (!exists && tape.aliases.length >= ALIAS_SLOTS) {
    throw uploadErrors.badRequest(`a tape has at most ${ALIAS_SLOTS} aliases`);
  }
}
