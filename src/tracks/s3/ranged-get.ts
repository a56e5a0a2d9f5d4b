import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Checksum, HttpRequest, SourceData } from '@smithy/types';
import { createHash, createHmac, Hash, Hmac } from 'node:crypto';
import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Readable } from 'node:stream';
import type { TrackS3Config } from '../../config/storage.config';

/** What a ranged GET of one object answers: its status, length, user metadata and bytes. */
export interface RangedObject {
  /** The body's length as the store announced it, when it did. */
  contentLength: number | undefined;
  /** A user metadata value (`x-amz-meta-<name>`), when the object carries it. */
  metadata(name: string): string | undefined;
  body: Readable;
}

/** A store's refusal of a ranged GET: its HTTP status (404 for a missing object). */
export class RangedGetError extends Error {
  readonly $metadata: { httpStatusCode: number };

  constructor(readonly status: number) {
    super(`the store answered HTTP ${status}`);
    this.name = status === 404 ? 'NoSuchKey' : 'RangedGetError';
    this.$metadata = { httpStatusCode: status };
  }
}

/** A ranged GET of `key` (bytes from..toInclusive), the one read the hot path makes. */
export type RangedGet = (key: string, from: number, toInclusive: number) => Promise<RangedObject>;

/**
 * Ranged GETs through a client's full command pipeline (`GetObjectCommand`): what a store
 * given as an S3Client (an in-memory bucket in specs, any custom client) is read with.
 */
export function commandRangedGet(client: S3Client, bucket: string): RangedGet {
  return async (key, from, toInclusive) => {
    const out = await client.send(
      new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${from}-${toInclusive}` }),
    );
    const body = out.Body as Readable | undefined;
    if (!body) throw new Error('empty response');
    return {
      contentLength: out.ContentLength,
      metadata: (name) => out.Metadata?.[name],
      body,
    };
  };
}

/**
 * Ranged GETs signed by the AWS SDK's own SigV4 signer (`@smithy/signature-v4`) and sent by its
 * own HTTP handler (`@smithy/node-http-handler`, keep-alive), without the command pipeline
 * around them. A cold read is one such GET, and the pipeline (serializer, endpoint rules,
 * retry and checksum middleware, deserializer) costs more than the GET itself: measured
 * against a local server sending 256 KiB, 2.0–2.4 ms a GET through `client.send` against
 * 0.7–0.9 ms signed and sent by the same two parts directly (plain HTTP 0.5–0.7 ms;
 * docs/tracks.md, "Cold reads"). Everything else the store does (writes, multipart, HEAD,
 * listing, deletes, the bucket) stays on the S3Client.
 *
 * The request is the one the SDK sends for GetObject with a Range: path-style
 * (`endpoint/bucket/key`) or virtual-hosted (`bucket.endpoint/key`), each key segment
 * URI-encoded once (S3 signs the path as sent), `x-amz-content-sha256: UNSIGNED-PAYLOAD`.
 * Without an access key the GET goes unsigned (a public-read bucket).
 */
export function signedRangedGet(
  s3: TrackS3Config,
  handler: Pick<NodeHttpHandler, 'handle'> = rangedGetHandler(s3),
): RangedGet {
  if (!s3.endpoint) throw new Error('storage.tracks.s3.endpoint is required');
  const endpoint = new URL(s3.endpoint);
  const defaultPort = endpoint.protocol === 'https:' ? '443' : '80';
  const port = endpoint.port && endpoint.port !== defaultPort ? Number(endpoint.port) : undefined;
  const hostname = s3.path_style ? endpoint.hostname : `${s3.bucket}.${endpoint.hostname}`;
  const host = port === undefined ? hostname : `${hostname}:${port}`;
  const base = endpoint.pathname.replace(/\/+$/, '');
  const bucketPath = s3.path_style ? `${base}/${encodeSegment(s3.bucket)}` : base;
  const signer =
    s3.access_key_id !== undefined && s3.secret_access_key !== undefined
      ? new SignatureV4({
          credentials: { accessKeyId: s3.access_key_id, secretAccessKey: s3.secret_access_key },
          region: s3.region,
          service: 's3',
          sha256: NodeSha256,
          uriEscapePath: false,
          applyChecksum: false,
        })
      : undefined;
  const once: RangedGet = async (key, from, toInclusive) => {
    const request: HttpRequest = {
      protocol: endpoint.protocol,
      hostname,
      ...(port !== undefined && { port }),
      method: 'GET',
      path: `${bucketPath}/${key.split('/').map(encodeSegment).join('/')}`,
      query: {},
      headers: {
        host,
        range: `bytes=${from}-${toInclusive}`,
        'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
      },
    };
    const signed = signer ? await signer.sign(request) : request;
    const { response } = await handler.handle(signed as Parameters<NodeHttpHandler['handle']>[0]);
    const body = response.body as Readable;
    if (response.statusCode !== 200 && response.statusCode !== 206) {
      body.destroy();
      throw new RangedGetError(response.statusCode);
    }
    const headers = response.headers;
    const length = headers['content-length'];
    return {
      contentLength: length === undefined ? undefined : Number(length),
      metadata: (name) => headers[`x-amz-meta-${name}`],
      body,
    };
  };
  // Once more after a failure that may pass (as the S3 client's own two attempts): a keep-alive
  // connection the store closed as it was reused, a timeout, a 5xx. A 4xx is the answer.
  return async (key, from, toInclusive) => {
    try {
      return await once(key, from, toInclusive);
    } catch (err) {
      if (err instanceof RangedGetError && err.status < 500) throw err;
      return once(key, from, toInclusive);
    }
  };
}

/**
 * The HTTP handler of ranged GETs: keep-alive connections; the store counts as down when it
 * does not connect within 3 s, answer within `request_timeout_ms`, or sends nothing of a body
 * for as long (each a thrown TimeoutError: a GET has no body to send, so a slow client link
 * cannot trip the answer's deadline).
 */
function rangedGetHandler(s3: TrackS3Config): NodeHttpHandler {
  const agentOptions = { keepAlive: true, maxSockets: 256 };
  return new NodeHttpHandler({
    connectionTimeout: Math.min(s3.request_timeout_ms, 3000),
    requestTimeout: s3.request_timeout_ms,
    throwOnRequestTimeout: true,
    socketTimeout: s3.request_timeout_ms,
    httpAgent: new Agent(agentOptions),
    httpsAgent: new HttpsAgent(agentOptions),
  });
}

/** One path segment as S3 expects it: RFC 3986 unreserved characters kept, all else escaped. */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function bytesOf(data: SourceData): string | Uint8Array {
  if (typeof data === 'string') return data;
  if (ArrayBuffer.isView(data))
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}

/** SHA-256 (or HMAC-SHA-256 with a secret) from node:crypto, as the signer's hash. */
class NodeSha256 implements Checksum {
  private hash: Hash | Hmac;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }

  update(data: Uint8Array): void {
    this.hash.update(data);
  }

  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }

  reset(): void {
    this.hash = this.fresh();
  }

  private fresh(): Hash | Hmac {
    return this.secret === undefined
      ? createHash('sha256')
      : createHmac('sha256', bytesOf(this.secret));
  }
}
