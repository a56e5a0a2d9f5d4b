import { Keypair, PublicKey } from '@solana/web3.js';
import { UPLOAD_HEADERS } from '../../upload/upload-auth';
import { commitmentToHex } from '../../tracks/commitment';
import { expiredMessage } from '../output/expiry-notice';
import { formatDuration } from '../output/units';
import { CliError } from '../cli-error';
import { PlannedTrack } from './deploy-planner';
import { UploadSigner } from './upload-signer';
import { GatewayClient, GatewayReply, GatewayUnreachableError, UploadBody } from './gateway-client';
import {
  backoffMs,
  DEFAULT_MAX_WAIT_MS,
  parseRetryAfter,
  retryAfterWithJitter,
  WaitBudget,
} from './upload-backoff';
import { Outcome, UploadPacer } from './upload-pacer';

/**
 * A busy gateway: asked again until the request's wait budget (`--max-wait`) is spent, after
 * the `Retry-After` it gives or an exponential backoff.
 */
const BUSY_STATUSES = new Set([429, 502, 503, 504]);
/** Worth a few quick tries only: the chain read lagging the write (404), a hiccup. */
const FLAKY_STATUSES = new Set([404, 408, 500]);
const FLAKY_ATTEMPTS = 5;

export interface UploaderOptions {
  /** Uploads in flight at most (`--concurrency`). */
  concurrency: number;
  /** The longest one request waits in all before the deploy gives up (`--max-wait`). */
  maxWaitMs?: number;
  onBytes?: (bytes: number) => void;
  /** An upload waits `ms` before asking again because the gateway answered `status`. */
  onWait?: (status: number, ms: number) => void;
  random?: () => number;
  /** First step of the backoff when the gateway names no time (tests shorten it). */
  backoffBaseMs?: number;
}

/**
 * Uploads a track's bytes (docs/uploads.md): one signed PUT for a blob; for a streamed object,
 * every segment (in parallel, with `X-Tape-Segment`) and then the manifest. Every request goes
 * through one pacer, so a big file's segments and many small files share one limit, and that
 * limit follows what the gateway accepts (src/cli/deploy/upload-pacer.ts). A request the gateway
 * refuses waits on its own (the rest of the deploy keeps going) and is asked again.
 */
export class TrackUploader {
  private readonly pacer: UploadPacer;
  private readonly signatures: UploadSigner;
  private readonly maxWaitMs: number;
  private readonly random: () => number;

  constructor(
    private readonly gateway: GatewayClient,
    private readonly tape: PublicKey,
    private readonly signer: Keypair,
    private readonly options: UploaderOptions,
  ) {
    this.pacer = new UploadPacer(options.concurrency);
    this.signatures = new UploadSigner(signer);
    this.maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    this.random = options.random ?? Math.random;
  }

  /** Resolves once the gateway has stored and certified the track. */
  async upload(track: PlannedTrack, label: string): Promise<void> {
    const address = track.address.toBase58();
    const layout = track.layout;
    if (layout.kind === 'blob') {
      await this.put(address, label, track.commitmentHex, {
        path: track.path,
        start: 0,
        size: layout.size,
      });
      return;
    }
    await Promise.all(
      layout.segments.map((segment) =>
        this.put(
          address,
          label,
          commitmentToHex(segment.commitment),
          { path: track.path, start: segment.offset, size: segment.size },
          true,
        ),
      ),
    );
    await this.put(address, label, track.commitmentHex, { bytes: layout.manifestBytes });
  }

  private async put(
    track: string,
    label: string,
    commitment: string,
    body: UploadBody,
    segment = false,
  ): Promise<void> {
    const size = 'bytes' in body ? body.bytes.length : body.size;
    const claim = { tape: this.tape.toBase58(), track, commitment, size };
    const budget = new WaitBudget(this.maxWaitMs);
    for (let attempt = 1; ; attempt++) {
      let reply: GatewayReply;
      try {
        reply = await this.pacer.run(
          attempt > 1,
          () =>
            // Signed when sent, not when queued: the gateway checks the timestamp's age.
            this.gateway.putTrack(track, body, {
              ...this.signatures.headers(claim),
              ...(segment ? { [UPLOAD_HEADERS.segment]: commitment } : {}),
            }),
          (r) => this.outcome(r),
        );
      } catch (err) {
        if (err instanceof GatewayUnreachableError && attempt < FLAKY_ATTEMPTS) {
          await sleep(backoffMs(attempt, this.random, 200));
          continue;
        }
        throw err;
      }
      if (reply.status === 200) {
        if (!('bytes' in body)) this.options.onBytes?.(size);
        return;
      }
      if (FLAKY_STATUSES.has(reply.status) && attempt < FLAKY_ATTEMPTS) {
        await sleep(backoffMs(attempt, this.random, 200));
        continue;
      }
      if (BUSY_STATUSES.has(reply.status)) {
        const asked = parseRetryAfter(reply.retryAfter, Date.now());
        const wait =
          asked !== undefined
            ? retryAfterWithJitter(asked, this.random)
            : backoffMs(attempt, this.random, this.options.backoffBaseMs);
        if (budget.take(wait)) {
          this.options.onWait?.(reply.status, wait);
          await sleep(wait);
          continue;
        }
        throw new CliError(this.gaveUp(reply, label, budget, asked));
      }
      throw new CliError(this.describe(reply, label));
    }
  }

  private outcome(reply: GatewayReply): Outcome {
    if (reply.status === 200) return { kind: 'accepted' };
    if (reply.status === 429) {
      const asked = parseRetryAfter(reply.retryAfter, Date.now());
      return { kind: 'refused', retryAfterMs: asked ?? 1000 };
    }
    return { kind: 'other' };
  }

  private gaveUp(
    reply: GatewayReply,
    label: string,
    budget: WaitBudget,
    askedMs: number | undefined,
  ): string {
    const why = `${reply.status}${reply.code ? ` ${reply.code}` : ''}${reply.message ? `: ${reply.message}` : ''}`;
    const asked = askedMs !== undefined ? `; it asks for ${waitText(askedMs)} more` : '';
    return (
      `the gateway at ${this.gateway.baseUrl} kept refusing ${label} (${why}) after ` +
      `${waitText(budget.spentMs)} of waiting${asked}; run tape deploy again later, or allow ` +
      `a longer wait with --max-wait (now ${waitText(budget.capMs)})`
    );
  }

  private describe(reply: GatewayReply, label: string): string {
    const detail = reply.message ? `: ${reply.message}` : '';
    switch (reply.status) {
      case 401:
        return `the gateway at ${this.gateway.baseUrl} refused the upload signature of ${label}${detail} (is this computer's clock right?)`;
      case 403:
        return `unauthorized signer: the gateway says ${this.signer.publicKey.toBase58()} cannot write to tape ${this.tape.toBase58()}`;
      case 410:
        return expiredMessage(this.tape);
      case 422:
        return `${label} changed during the deploy (its bytes no longer match); run tape deploy again`;
      default:
        return `the gateway at ${this.gateway.baseUrl} refused ${label}: ${reply.status}${reply.code ? ` ${reply.code}` : ''}${detail}`;
    }
  }
}

function waitText(ms: number): string {
  return formatDuration(Math.max(1, Math.round(ms / 1000)));
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
