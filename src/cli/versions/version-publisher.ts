import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { VersionConflictError, toChainError } from '../../chain/chain-error';
import { ChainRpc } from '../../chain/chain-rpc';
import { TapeInstructions } from '../../chain/tape-instructions';
import { conflictSequenceOf } from '../../upload/publish-errors';
import { requestMessage, versionUploadMessage } from '../../upload/version-request-auth';
import type { BuiltVersion } from '../../versions/version-builder';
import type { ChangedFile, VersionPlan } from '../../versions/version-planner';
import { CliError } from '../cli-error';
import { runBounded } from '../deploy/bounded-pool';
import { GatewayClient } from '../deploy/gateway-client';
import {
  DEFAULT_MAX_WAIT_MS,
  WaitBudget,
  backoffMs,
  parseRetryAfter,
  retryAfterWithJitter,
} from '../deploy/upload-backoff';
import { UploadSigner } from '../deploy/upload-signer';
import { checkPublishTransaction } from './publish-transaction-check';
import { TrackToUpload, tracksToUpload } from './version-tracks-to-upload';

export interface VersionToPublish {
  tape: PublicKey;
  /** The tape's authority or delegate: signs the requests and the Publish. */
  tapeSigner: Keypair;
  /** Pays the Publish's fee (no rent: Publish creates no account). */
  wallet: Keypair;
  plan: VersionPlan;
  built: BuiltVersion;
  /** The tape's `sequence` when the plan's base was read (compare-and-swap). */
  expectedSequence: number;
  /** Publish under this alias (a preview): the current version stays. */
  alias?: string;
  /** Where a file the plan uploads as a track of its own is on disk. */
  pathOf: (file: ChangedFile) => string;
}

export interface PublishedVersion {
  version: number;
  signature: string;
  versionBytes: number;
  addedBytes: number;
  /** Unique bytes of the versions the tape keeps after this one, as the gateway certified. */
  keptBytes: number;
  /** Tracks and bytes uploaded: only what the gateway lacked. */
  uploadedTracks: number;
  uploadedBytes: number;
}

export interface VersionPublisherOptions {
  concurrency: number;
  segmentBytes: number;
  storageAuthority: PublicKey;
  /** The longest one request waits on a busy gateway (429, 503) in all (`--max-wait`). */
  maxWaitMs?: number;
  /** Progress: the tracks and bytes about to be sent, each track sent, each wait. */
  onUploads?: (tracks: number, bytes: number) => void;
  onUploaded?: (track: TrackToUpload) => void;
  onWait?: (status: number, ms: number) => void;
}

/** Commitments per `missing` question: its answer stays well under the client's 64 KiB. */
const MISSING_BATCH = 512;

/**
 * Publishes a planned version through a writer gateway (docs/versions.md, "Concurrency"): asks
 * which tracks the gateway lacks, uploads those, asks for the certified Publish co-signed by
 * the storage authority, checks that transaction, signs and sends it. A lost compare-and-swap
 * (the gateway's 409, or the program's `version conflict`) rejects with VersionConflictError:
 * the caller plans again on the new current version and publishes that.
 */
export class VersionPublisher {
  constructor(
    private readonly gateway: GatewayClient,
    private readonly rpc: ChainRpc,
    private readonly ix: TapeInstructions,
    private readonly options: VersionPublisherOptions,
  ) {}

  async publish(v: VersionToPublish): Promise<PublishedVersion> {
    const signer = new UploadSigner(v.tapeSigner);
    const tape = v.tape.toBase58();
    const all = await tracksToUpload(v.plan, v.built, v.pathOf, this.options.segmentBytes);
    const lacking = await this.missing(signer, tape, all);
    const todo = all.filter((t) => lacking.has(t.commitment));
    const data = todo.filter((t) => !t.isRoot);
    this.options.onUploads?.(
      todo.length,
      todo.reduce((sum, t) => sum + t.size, 0),
    );
    await runBounded(data.length, this.options.concurrency, (i) =>
      this.upload(signer, tape, data[i]),
    );
    for (const root of todo.filter((t) => t.isRoot)) await this.upload(signer, tape, root);
    const sent = await this.cosignAndSend(signer, v);
    return {
      ...sent,
      uploadedTracks: todo.length,
      uploadedBytes: todo.reduce((sum, t) => sum + t.size, 0),
    };
  }

  /** Which of the tracks the gateway lacks (`POST /upload/{tape}/missing`), by commitment (hex). */
  async missing(signer: UploadSigner, tape: string, tracks: TrackToUpload[]): Promise<Set<string>> {
    const lacking = new Set<string>();
    for (let i = 0; i < tracks.length; i += MISSING_BATCH) {
      const commitments = tracks.slice(i, i + MISSING_BATCH).map((t) => t.commitment);
      const reply = await this.signedJson(signer, 'missing', tape, `upload/${tape}/missing`, {
        commitments,
      });
      for (const hex of (reply as { missing: string[] }).missing) lacking.add(hex);
    }
    return lacking;
  }

  private async upload(signer: UploadSigner, tape: string, track: TrackToUpload): Promise<void> {
    const budget = new WaitBudget(this.options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS);
    for (let attempt = 1; ; attempt++) {
      const headers = signer.signed((timestamp) =>
        versionUploadMessage({ tape, commitment: track.commitment, size: track.size, timestamp }),
      );
      const reply = await this.gateway.exchange(
        'PUT',
        `upload/${tape}/${track.commitment}`,
        { ...headers, 'content-type': 'application/octet-stream' },
        track.body,
      );
      if (reply.status === 200) {
        this.options.onUploaded?.(track);
        return;
      }
      if (await this.waited(reply, attempt, budget)) continue;
      throw refusal(`upload of ${track.label}`, reply.status, reply.body);
    }
  }

  /**
   * A gateway that refused for a moment (429, 503) is asked again after what its Retry-After
   * says, else after an exponential backoff (docs/cli.md, "Busy gateways"), while the request's
   * wait budget lasts; false when the refusal is final.
   */
  private async waited(
    reply: { status: number; retryAfter?: string },
    attempt: number,
    budget: WaitBudget,
  ): Promise<boolean> {
    if (reply.status !== 429 && reply.status !== 503) return false;
    const told = parseRetryAfter(reply.retryAfter, Date.now());
    const ms = told === undefined ? backoffMs(attempt) : retryAfterWithJitter(told);
    if (!budget.take(ms)) return false;
    this.options.onWait?.(reply.status, ms);
    await new Promise((r) => setTimeout(r, ms));
    return true;
  }

  private async cosignAndSend(
    signer: UploadSigner,
    v: VersionToPublish,
  ): Promise<{
    version: number;
    signature: string;
    versionBytes: number;
    addedBytes: number;
    keptBytes: number;
  }> {
    const tape = v.tape.toBase58();
    const answer = (await this.signedJson(signer, 'publish', tape, `publish/${tape}`, {
      root: v.built.rootCommitment.toString('hex'),
      expected_sequence: v.expectedSequence,
      fee_payer: v.wallet.publicKey.toBase58(),
      ...(v.alias ? { alias: v.alias } : {}),
    })) as {
      transaction: string;
      version: number;
      version_bytes: number;
      added_bytes: number;
      kept_bytes: number;
      last_valid_block_height: number;
    };
    const tx = Transaction.from(Buffer.from(answer.transaction, 'base64'));
    checkPublishTransaction(tx, {
      feePayer: v.wallet.publicKey,
      storageAuthority: this.options.storageAuthority,
      publish: this.ix.publish({
        signer: v.tapeSigner.publicKey,
        storageAuthority: this.options.storageAuthority,
        tape: v.tape,
        expectedSequence: v.expectedSequence,
        root: v.built.rootCommitment,
        versionBytes: answer.version_bytes,
        keptBytes: answer.kept_bytes,
        alias: v.alias,
      }),
    });
    const signers = v.wallet.publicKey.equals(v.tapeSigner.publicKey)
      ? [v.wallet]
      : [v.wallet, v.tapeSigner];
    tx.partialSign(...signers);
    const signature = await this.rpc.call(async (c) => {
      const sig = await c.sendRawTransaction(tx.serialize(), {
        preflightCommitment: this.rpc.commitment,
      });
      const { value } = await c.confirmTransaction(
        {
          signature: sig,
          blockhash: tx.recentBlockhash!,
          // The wire format has no expiry height: the gateway's answer says it.
          lastValidBlockHeight: answer.last_valid_block_height,
        },
        this.rpc.commitment,
      );
      if (value.err) {
        throw toChainError(
          Object.assign(new Error(JSON.stringify(value.err)), { transactionError: value.err }),
          this.rpc.url,
        );
      }
      return sig;
    });
    return {
      version: answer.version,
      signature,
      versionBytes: answer.version_bytes,
      addedBytes: answer.added_bytes,
      keptBytes: answer.kept_bytes,
    };
  }

  private async signedJson(
    signer: UploadSigner,
    route: 'missing' | 'publish',
    tape: string,
    path: string,
    payload: unknown,
  ): Promise<unknown> {
    const body = Buffer.from(JSON.stringify(payload), 'utf8');
    const budget = new WaitBudget(this.options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS);
    for (let attempt = 1; ; attempt++) {
      const headers = signer.signed((timestamp) =>
        requestMessage({ route, tape, body, timestamp }),
      );
      const reply = await this.gateway.exchange(
        'POST',
        path,
        { ...headers, 'content-type': 'application/json' },
        { bytes: body },
      );
      if (reply.status === 200) return JSON.parse(reply.body.toString('utf8')) as unknown;
      const error = errorOf(reply.body);
      if (reply.status === 409 && error.code === 'version_conflict') {
        throw new VersionConflictError(conflictSequenceOf(error.message));
      }
      // 429: another version of this tape is being certified (the gate runs one per tape); 503:
      // the gateway is busy. Asked again, a Publish that lost meanwhile answers 409 above.
      if (await this.waited(reply, attempt, budget)) continue;
      throw refusal(route, reply.status, reply.body);
    }
  }
}

/** The gateway's error body (`{"error":{code,message}}`), or nothing when it is not one. */
export function errorOf(body: Buffer): { code?: string; message?: string } {
  try {
    return (
      (JSON.parse(body.toString('utf8')) as { error?: { code?: string; message?: string } })
        .error ?? {}
    );
  } catch {
    return {};
  }
}

/** The gateway's refusal as one line: `<what>: <status> <message>`. */
export class GatewayRefusalError extends CliError {
  constructor(
    what: string,
    readonly status: number,
    readonly code: string | undefined,
    message: string | undefined,
  ) {
    super(`${what} refused by the gateway: ${status} ${message ?? code ?? ''}`.trim());
  }
}

function refusal(what: string, status: number, body: Buffer): GatewayRefusalError {
  const error = errorOf(body);
  return new GatewayRefusalError(what, status, error.code, error.message);
}
