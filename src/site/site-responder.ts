import { Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { contentRange, parseRange, unsatisfiedContentRange } from '../tracks/byte-range';
import { ifNoneMatchMatches, ifRangeAllowsRange } from '../tracks/conditional-request';
import { multipartByteranges } from '../tracks/multipart-byteranges';
import { ObjectReader, OpenedObject } from '../tracks/object-reader';
import { TrackStoreError, TrackStoreUnavailableError } from '../tracks/track-errors';
import { Coding, negotiateCoding } from './content-coding';
import { allowedOrigin, EXPOSED_HEADERS } from './cors';
import { SiteBodyCache } from './site-body-cache';
import { SiteSnapshot } from './site-snapshots';
import {
  attachmentDisposition,
  compressionEligible,
  contentTypeOf,
  HeaderSet,
  representationHeaders,
  RepresentationHeaders,
  securityHeaders,
} from './site-headers';
import { BuiltInPage, PAGE_CONTENT_TYPE, PAGES } from './site-pages';
import { ERROR_PAGE_CSP, SitePolicy } from './site-policy';
import { fileNameOf } from './site-path';
import { SiteObject } from './site-source';

/** What is known about one object's answers within one snapshot (memoised in it). */
export interface Prepared {
  object: SiteObject;
  status: 200 | 404;
  /** Answers of a path route (the gateway's shared origin): sandboxed (path-isolation.ts). */
  shared: boolean;
  compressible: boolean;
  identity: RepresentationHeaders;
  /** Per coding: its headers once compressed, or false when compression does not pay. */
  variants: Partial<Record<Coding, RepresentationHeaders | false>>;
}

export interface ObjectAnswer {
  snapshot: SiteSnapshot;
  object: SiteObject;
  status: 200 | 404;
  download: boolean;
  /** Served on a path route, the gateway's origin shared by every site. */
  shared: boolean;
}

/**
 * Writes site answers onto Fastify replies: the object itself (conditional requests, ranges,
 * compression, HEAD), redirects and the built-in pages. On a hit (headers prepared, body in
 * memory) everything happens synchronously; misses return a promise.
 */
export class SiteResponder {
  private readonly logger = new Logger('site');

  constructor(
    private readonly reader: ObjectReader,
    private readonly bodies: SiteBodyCache,
  ) {}

  object(req: FastifyRequest, reply: FastifyReply, answer: ObjectAnswer): void | Promise<void> {
    const p = this.prepared(answer);
    const ranged = answer.status === 200 && req.headers.range !== undefined;
    let coding: Coding | null = null;
    let rep = p.identity;
    if (p.compressible && !ranged) {
      coding = negotiateCoding(req.headers['accept-encoding']);
      if (coding !== null) {
        const variant = p.variants[coding];
        if (variant === undefined) return this.compressThenAnswer(req, reply, answer, p, coding);
        if (variant === false) coding = null;
        else rep = variant;
      }
    }
    this.applyRequestHeaders(req, reply, answer);
    if (answer.status === 200 && ifNoneMatchMatches(header(req, 'if-none-match'), rep.etag)) {
      reply.code(304).headers(rep.notModified);
      return void reply.send();
    }
    if (ranged && ifRangeAllowsRange(header(req, 'if-range'), rep.etag)) {
      const range = parseRange(header(req, 'range'), answer.object.size);
      if (range.kind !== 'none') return this.ranged(req, reply, p, range);
    }
    reply.code(answer.status).headers(rep.full);
    if (req.method === 'HEAD') return void reply.send();
    const cached = coding
      ? this.bodies.getVariant(p.object, coding)
      : this.bodies.getIdentity(p.object);
    if (cached) return void reply.send(cached);
    return this.sendLoaded(reply, p, coding);
  }

  redirect(reply: FastifyReply, policy: SitePolicy, location: string, shared: boolean): void {
    reply.code(308).headers(securityHeaders(policy, shared)).header('location', location);
    void reply
      .header('content-type', 'text/plain; charset=utf-8')
      .send(`Redirecting to ${location}\n`);
  }

  /**
   * A built-in page. 404 and 410 are cached like the site's content (`policy`), the others
   * (refusals and failures) never.
   */
  page(reply: FastifyReply, page: BuiltInPage, policy?: SitePolicy, extra?: HeaderSet): void {
    const cacheable = policy !== undefined && (page.status === 404 || page.status === 410);
    reply
      .code(page.status)
      .header('content-type', PAGE_CONTENT_TYPE)
      .header('cache-control', cacheable ? policy.cacheControl : 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', ERROR_PAGE_CSP);
    if (extra) reply.headers(extra);
    void reply.send(page.body);
  }

  /**
   * The prepared answers of an object in a snapshot (built once, then memoised in it). A
   * hostname route's 200 is keyed by the object itself, so the hot path hashes no string.
   */
  prepared(answer: Pick<ObjectAnswer, 'snapshot' | 'object' | 'status' | 'shared'>): Prepared {
    const key = answer.status === 200 ? answer.object : `${answer.status}:${answer.object.name}`;
    const memos = answer.shared ? sharedMemo(answer.snapshot) : answer.snapshot.prepared;
    const memo = memos.get(key) as Prepared | undefined;
    if (memo) return memo;
    const { object, status, shared } = answer;
    const compressible = compressionEligible(object, this.bodies.maxObjectBytes);
    const p: Prepared = {
      object,
      status,
      shared,
      compressible,
      identity: representationHeaders(object, answer.snapshot.policy, {
        status,
        coding: null,
        bodyLength: object.size,
        compressible,
        shared,
      }),
      variants: {},
    };
    memos.set(key, p);
    return p;
  }

  private applyRequestHeaders(
    req: FastifyRequest,
    reply: FastifyReply,
    answer: ObjectAnswer,
  ): void {
    const origin = header(req, 'origin');
    if (origin !== undefined) {
      const allowed = allowedOrigin(answer.snapshot.policy, origin);
      if (allowed) {
        reply.header('access-control-allow-origin', allowed);
        reply.header('access-control-expose-headers', EXPOSED_HEADERS);
      }
    }
    if (answer.download && answer.status === 200) {
      reply.header('content-disposition', attachmentDisposition(fileNameOf(answer.object.name)));
    }
  }

  private async compressThenAnswer(
    req: FastifyRequest,
    reply: FastifyReply,
    answer: ObjectAnswer,
    p: Prepared,
    coding: Coding,
  ): Promise<void> {
    let compressed: Buffer | null;
    try {
      compressed = await this.bodies.loadVariant(p.object, coding);
    } catch (err) {
      return this.contentFailure(reply, p.object, err);
    }
    p.variants[coding] =
      compressed === null
        ? false
        : representationHeaders(p.object, answer.snapshot.policy, {
            status: p.status,
            coding,
            bodyLength: compressed.length,
            compressible: true,
            shared: p.shared,
          });
    return this.object(req, reply, answer);
  }

  private async sendLoaded(reply: FastifyReply, p: Prepared, coding: Coding | null): Promise<void> {
    try {
      if (coding !== null) {
        const body =
          this.bodies.getVariant(p.object, coding) ??
          (await this.bodies.loadVariant(p.object, coding));
        if (body) return void reply.send(body);
      }
      if (this.bodies.cacheable(p.object)) {
        return void reply.send(await this.bodies.loadIdentity(p.object));
      }
      const opened = await this.open(p.object);
      if (opened.size === 0) return void reply.send(Buffer.alloc(0));
      return void reply.send(opened.read(0, opened.size - 1));
    } catch (err) {
      return this.contentFailure(reply, p.object, err);
    }
  }

  private async ranged(
    req: FastifyRequest,
    reply: FastifyReply,
    p: Prepared,
    range: Exclude<ReturnType<typeof parseRange>, { kind: 'none' }>,
  ): Promise<void> {
    const size = p.object.size;
    const base = p.identity.full;
    if (range.kind === 'unsatisfiable') {
      reply
        .code(416)
        .headers(withoutBody(base))
        .header('content-range', unsatisfiedContentRange(size));
      return void reply.header('content-length', '0').send();
    }
    let source: (start: number, end: number) => Readable;
    try {
      source = await this.rangeSource(p.object);
    } catch (err) {
      return this.contentFailure(reply, p.object, err);
    }
    reply.code(206).headers(base);
    if (range.kind === 'single') {
      reply
        .header('content-range', contentRange(range, size))
        .header('content-length', String(range.end - range.start + 1));
      if (req.method === 'HEAD') return void reply.send();
      return void reply.send(source(range.start, range.end));
    }
    const multipart = multipartByteranges(range.ranges, size, contentTypeOf(p.object));
    reply
      .header('content-type', multipart.contentType)
      .header('content-length', String(multipart.contentLength));
    if (req.method === 'HEAD') return void reply.send();
    return void reply.send(multipart.body(source));
  }

  private async rangeSource(object: SiteObject): Promise<(start: number, end: number) => Readable> {
    const cached = this.bodies.getIdentity(object);
    if (cached)
      return (start, end) =>
        Readable.from([cached.subarray(start, end + 1)], { objectMode: false });
    const opened = await this.open(object);
    return (start, end) => opened.read(start, end);
  }

  private open(object: SiteObject): Promise<OpenedObject> {
    return this.reader.open({
      kind: object.kind,
      commitment: object.commitment,
      size: object.size,
    });
  }

  /** Storage failed the object (missing or failing its commitment): 502, never its bytes. */
  private contentFailure(reply: FastifyReply, object: SiteObject, err: unknown): void {
    if (!(err instanceof TrackStoreError)) throw err;
    this.logger.error(
      `object ${object.name} (track ${object.commitmentHex}) cannot be served: ${err.message}`,
    );
    for (const name of CONTENT_HEADERS) reply.removeHeader(name);
    this.page(
      reply,
      err instanceof TrackStoreUnavailableError ? PAGES.storeUnavailable : PAGES.badContent,
    );
  }
}

/** Headers of an object answer that must not stay on the error page replacing it. */
const CONTENT_HEADERS = [
  'content-length',
  'content-encoding',
  'content-disposition',
  'content-range',
  'etag',
  'accept-ranges',
  'vary',
];

/** Path-route answers are memoised apart: same keys, other headers (the sandbox). */
const SHARED_ORIGIN = Symbol('shared-origin answers');

function sharedMemo(snapshot: SiteSnapshot): Map<unknown, unknown> {
  let memo = snapshot.prepared.get(SHARED_ORIGIN) as Map<unknown, unknown> | undefined;
  if (!memo) {
    memo = new Map();
    snapshot.prepared.set(SHARED_ORIGIN, memo);
  }
  return memo;
}

function header(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function withoutBody(headers: HeaderSet): Record<string, string> {
  const { 'content-length': _length, 'content-encoding': _coding, ...rest } = headers;
  return rest;
}
