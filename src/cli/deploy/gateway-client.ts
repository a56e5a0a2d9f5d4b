import { createReadStream } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { CliError } from '../cli-error';

export interface UploadConfig {
  segmentBytes: number;
  gatewayKey: string;
  storageAuthority: string;
  /**
   * `.well-known/` names the gateway publishes (`gateway.site.well_known_allow`); empty when
   * none, or when the gateway is older than the setting.
   */
  wellKnownAllow: string[];
}

/** Bytes of one upload request: a range of a file on disk, or bytes in memory (a manifest). */
export type UploadBody = { path: string; start: number; size: number } | { bytes: Buffer };

/** The gateway could not be reached at all (as opposed to answering with an error). */
export class GatewayUnreachableError extends CliError {}

/**
 * The gateway's upload API (docs/uploads.md) over Node's own HTTP client: keep-alive sockets
 * (one per upload in flight) and file bytes streamed from disk, never buffered whole.
 */
export class GatewayClient {
  private readonly base: URL;
  private readonly agent: http.Agent;

  constructor(
    readonly baseUrl: string,
    maxSockets = 64,
  ) {
    this.base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    const Agent = this.base.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  async uploadConfig(): Promise<UploadConfig> {
    const { status, body } = await this.request('GET', 'upload/config', {});
    if (status !== 200) {
      throw new CliError(
        `the gateway at ${this.baseUrl} does not accept uploads (GET /upload/config answered ${status})`,
      );
    }
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new CliError(`the gateway at ${this.baseUrl} sent an unreadable /upload/config`);
    }
    const segmentBytes = parsed.segment_bytes;
    if (
      typeof segmentBytes !== 'number' ||
      !Number.isSafeInteger(segmentBytes) ||
      segmentBytes < 1
    ) {
      throw new CliError(`the gateway at ${this.baseUrl} sent no valid segment_bytes`);
    }
    return {
      segmentBytes,
      gatewayKey: typeof parsed.gateway_key === 'string' ? parsed.gateway_key : '',
      storageAuthority:
        typeof parsed.storage_authority === 'string' ? parsed.storage_authority : '',
      wellKnownAllow: Array.isArray(parsed.well_known_allow)
        ? parsed.well_known_allow.filter((n): n is string => typeof n === 'string')
        : [],
    };
  }

  /**
   * Any other request of the gateway's writer API (version bytes, `missing`, publish): the
   * status and the reply's bytes (at most 64 KiB kept); rejects only when unreachable.
   */
  exchange(
    method: 'PUT' | 'POST',
    path: string,
    headers: Record<string, string>,
    body: UploadBody,
  ): Promise<{ status: number; body: Buffer; retryAfter?: string }> {
    const size = 'bytes' in body ? body.bytes.length : body.size;
    return this.request(method, path, { ...headers, 'content-length': String(size) }, body);
  }

  /**
   * A GET whose answer may be large (a version's manifest): the reply's bytes up to `maxBytes`
   * (more is an error), or fewer when `enough` says the bytes so far suffice (the rest is not
   * read); rejects only when unreachable or too large.
   */
  get(
    path: string,
    options: { maxBytes: number; enough?: (soFar: Buffer) => boolean },
  ): Promise<{ status: number; body: Buffer }> {
    return this.request('GET', path, {}, undefined, options);
  }

  close(): void {
    this.agent.destroy();
  }

  private request(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: UploadBody,
    large?: { maxBytes: number; enough?: (soFar: Buffer) => boolean },
  ): Promise<{ status: number; body: Buffer; retryAfter?: string }> {
    const url = new URL(path, this.base);
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      let fileError: Error | undefined;
      const req = transport.request(url, { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const retryAfter = res.headers['retry-after'];
        res.on('data', (chunk: Buffer) => {
          if (large === undefined) {
            // Replies are small JSON; never hold more than 64 KiB of whatever comes back.
            if (kept < 65536) {
              chunks.push(chunk);
              kept += chunk.length;
            }
            return;
          }
          chunks.push(chunk);
          kept += chunk.length;
          if (kept > large.maxBytes) {
            res.destroy();
            reject(
              new CliError(
                `the gateway at ${this.baseUrl} sent more than ${large.maxBytes} bytes for ${path}`,
              ),
            );
          } else if (res.statusCode === 200 && large.enough?.(Buffer.concat(chunks)) === true) {
            const soFar = Buffer.concat(chunks);
            res.destroy();
            resolve({ status: 200, body: soFar });
          }
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), retryAfter }),
        );
        res.on('error', (err) => reject(this.unreachable(err)));
      });
      req.setTimeout(120_000, () => req.destroy(new Error('timed out')));
      req.on('error', (err) =>
        reject(
          fileError && body && 'path' in body
            ? readError(body.path, fileError)
            : this.unreachable(err),
        ),
      );
      if (!body) {
        req.end();
      } else if ('bytes' in body) {
        req.end(body.bytes);
      } else if (body.size === 0) {
        req.end();
      } else {
        const stream = createReadStream(body.path, {
          start: body.start,
          end: body.start + body.size - 1,
          highWaterMark: 1024 * 1024,
        });
        stream.on('error', (err) => {
          fileError = err;
          req.destroy(err);
        });
        stream.pipe(req);
      }
    });
  }

  private unreachable(err: Error): GatewayUnreachableError {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code ?? err.message;
    return new GatewayUnreachableError(`cannot reach the gateway at ${this.baseUrl} (${reason})`);
  }
}

function readError(path: string, err: Error): CliError {
  const code = (err as NodeJS.ErrnoException).code ?? err.message;
  return new CliError(
    `cannot read ${path} (${code}); it changed during the deploy: run tape deploy again`,
  );
}
