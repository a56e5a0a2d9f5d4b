import { Agent as HttpAgent, IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { TrackStoreUnavailableError } from '../track-errors';

/** Why a peer was left for the next one (the `reason` label of tape_peer_failures_total). */
export type PeerFailureReason =
  | 'unreachable'
  | 'timeout'
  | 'status'
  | 'missing'
  | 'wrong_length'
  | 'bad_chunk_list'
  | 'bad_bytes';

/** Header that marks a request from a reader to its peer: the peer answers from what it holds. */
export const PEER_HOP_HEADER = 'x-tape-peer-hop';

/** A peer could not give what was asked; `reason` says why (the peer is then skipped). */
export class PeerFailure extends TrackStoreUnavailableError {
  constructor(
    readonly peer: string,
    readonly reason: PeerFailureReason,
    track: string,
    detail: string,
  ) {
    super(track, new Error(`peer ${peer}: ${detail}`));
  }
}

export interface PeerAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  /** The body; destroy it when not read to the end. */
  body: IncomingMessage;
}

/**
 * One HTTP request to a peer gateway, bounded: the answer's headers must come within
 * `timeoutMs` and the body may then be silent at most that long (the socket's idle timeout),
 * past which the request is destroyed with a PeerFailure('timeout'). Keep-alive agents per peer.
 */
export class PeerHttp {
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 64 });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 64 });

  constructor(private readonly timeoutMs: number) {}

  request(
    base: string,
    path: string,
    track: string,
    options: { method?: 'GET' | 'HEAD'; range?: [number, number] } = {},
  ): Promise<PeerAnswer> {
    const url = new URL(path, base.endsWith('/') ? base : `${base}/`);
    const secure = url.protocol === 'https:';
    const peer = url.origin;
    return new Promise<PeerAnswer>((resolve, reject) => {
      const req = (secure ? httpsRequest : httpRequest)(url, {
        method: options.method ?? 'GET',
        agent: secure ? this.httpsAgent : this.httpAgent,
        timeout: this.timeoutMs,
        headers: {
          [PEER_HOP_HEADER]: '1',
          ...(options.range && { range: `bytes=${options.range[0]}-${options.range[1]}` }),
        },
      });
      const headersBy = setTimeout(
        () => req.destroy(new PeerFailure(peer, 'timeout', track, 'no answer in time')),
        this.timeoutMs,
      );
      req.once('timeout', () =>
        req.destroy(new PeerFailure(peer, 'timeout', track, 'silent for too long')),
      );
      req.once('error', (err) => {
        clearTimeout(headersBy);
        reject(
          err instanceof PeerFailure
            ? err
            : new PeerFailure(peer, 'unreachable', track, err.message),
        );
      });
      req.once('response', (res) => {
        clearTimeout(headersBy);
        // A body cut by the timeout fails its reader with the PeerFailure.
        req.once('error', (err) => res.destroy(err));
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: res });
      });
      req.end();
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/** The origin of a peer URL: its name in metrics and logs (no path: it may hold a key). */
export function peerName(base: string): string {
  return new URL(base).origin;
}

/** Reads a body of exactly `expected` bytes (never more is kept), or fails with wrong_length. */
export async function readExactBody(
  answer: PeerAnswer,
  expected: number,
  peer: string,
  track: string,
): Promise<Buffer> {
  const declared = answer.headers['content-length'];
  if (declared !== undefined && Number(declared) !== expected) {
    answer.body.destroy();
    throw new PeerFailure(
      peer,
      'wrong_length',
      track,
      `answers ${declared} bytes, not ${expected}`,
    );
  }
  const out = Buffer.allocUnsafe(expected);
  let got = 0;
  try {
    for await (const piece of answer.body as AsyncIterable<Buffer>) {
      if (got + piece.length > expected) {
        answer.body.destroy();
        throw new PeerFailure(peer, 'wrong_length', track, `sends more than ${expected} bytes`);
      }
      piece.copy(out, got);
      got += piece.length;
    }
  } catch (err) {
    if (err instanceof PeerFailure) throw err;
    throw new PeerFailure(peer, 'unreachable', track, (err as Error).message);
  }
  if (got !== expected) {
    throw new PeerFailure(peer, 'wrong_length', track, `sent ${got} bytes, not ${expected}`);
  }
  return out;
}
