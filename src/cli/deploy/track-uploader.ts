import { Keypair, PublicKey } from '@solana/web3.js';
import { UPLOAD_HEADERS } from '../../tracks/upload-auth';
import { commitmentToHex } from '../../tracks/commitment';
import { CliError } from '../cli-error';
import { Semaphore } from './bounded-pool';
import { PlannedTrack } from './deploy-planner';
import { UploadSigner } from './upload-signer';
import { GatewayClient, GatewayReply, GatewayUnreachableError, UploadBody } from './gateway-client';

/** Statuses worth another try: the chain read lagging the write (404) or a busy gateway. */
const RETRY_STATUSES = new Set([404, 408, 429, 500, 502, 503, 504]);
const ATTEMPTS = 5;

/**
 * Uploads a track's bytes (docs/uploads.md): one signed PUT for a blob; for a streamed object,
 * every segment (in parallel, with `X-Tape-Segment`) and then the manifest. Each request waits for
 * a slot of a shared semaphore, so a big file's segments and many small files share one limit.
 */
export class TrackUploader {
  private readonly slots: Semaphore;
  private readonly signatures: UploadSigner;

  constructor(
    private readonly gateway: GatewayClient,
    private readonly tape: PublicKey,
    private readonly signer: Keypair,
    concurrency: number,
    private readonly onBytes: (bytes: number) => void = () => undefined,
  ) {
    this.slots = new Semaphore(concurrency);
    this.signatures = new UploadSigner(signer);
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
    for (let attempt = 1; ; attempt++) {
      let reply: GatewayReply;
      try {
        reply = await this.slots.run(() =>
          this.gateway.putTrack(track, body, {
            ...this.signatures.headers(claim),
            ...(segment ? { [UPLOAD_HEADERS.segment]: commitment } : {}),
          }),
        );
      } catch (err) {
        if (err instanceof GatewayUnreachableError && attempt < ATTEMPTS) {
          await delay(attempt);
          continue;
        }
        throw err;
      }
      if (reply.status === 200) {
        if (!('bytes' in body)) this.onBytes(size);
        return;
      }
      if (RETRY_STATUSES.has(reply.status) && attempt < ATTEMPTS) {
        await delay(attempt);
        continue;
      }
      throw new CliError(this.describe(reply, label));
    }
  }

  private describe(reply: GatewayReply, label: string): string {
    const detail = reply.message ? `: ${reply.message}` : '';
    switch (reply.status) {
      case 401:
        return `the gateway at ${this.gateway.baseUrl} refused the upload signature of ${label}${detail} (is this computer's clock right?)`;
      case 403:
        return `unauthorized signer: the gateway says ${this.signer.publicKey.toBase58()} cannot write to tape ${this.tape.toBase58()}`;
      case 410:
        return 'tape expired (fix: tape extend --duration <time>)';
      case 422:
        return `${label} changed during the deploy (its bytes no longer match); run tape deploy again`;
      default:
        return `the gateway at ${this.gateway.baseUrl} refused ${label}: ${reply.status}${reply.code ? ` ${reply.code}` : ''}${detail}`;
    }
  }
}

function delay(attempt: number): Promise<void> {
  return new Promise((r) => setTimeout(r, 200 * 2 ** (attempt - 1)));
}
