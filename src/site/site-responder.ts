import { Logger } from '@nestjs/common';
import { Readable } from 'node:stream';
import { contentRange, parseRange, unsatisfiedContentRange } from '../tracks/byte-range';
import { ifNoneMatchMatches, ifRangeAllowsRange } from '../tracks/conditional-request';
import { multipartByteranges } from '../tracks/multipart-byteranges';
import { ObjectReader, OpenedObject } from '../tracks/object-reader';
import { contentDigest } from '../tracks/content-digest';
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
import { BuiltInPage, PAGES } from './site-pages';
import { SitePolicy } from './site-policy';
import {
  bufferAnswer,
  HeaderList,
  headerList,
  pageAnswer,
  SiteAnswer,
  SiteRequest,
} from './site-answer';
import { fileNameOf } from './site-path';
import { SiteObject, trackRefOf } from './site-source';
import { requestHeader } from '../http/request-header';
import { decimalText } from '../http/decimal-text';

/** What is known about one object's answers within one snapshot (memoised in it). */
export interface Prepared {
  object: SiteObject;
  status: number;
  /** The policy the headers were made under (the path's, with its `_headers`). */
  policy: SitePolicy;
  /** Answers of a path route (the gateway's shared origin): sandboxed (path-isolation.ts). */
  shared: boolean;
  compressible: boolean;
  identity: RepresentationHeaders;
  /** Per coding: its headers once compressed, or false when compression does not pay. */
  variants: Partial<Record<Coding, RepresentationHeaders | false>>;
  /** The identity headers with `Content-Digest`, once the whole body was in memory. */
  digested?: HeaderList;
}

/** Which object a site request is answered with, and how. */
export interface ObjectChoice {
  snapshot: SiteSnapshot;
  object: SiteObject;
  status: 200 | 404 | 410 | 451;
  download: boolean;
  /** The path's policy when its site has `_headers` rules for it (site-path-policy.ts). */
  policy?: SitePolicy;
  /** Served on a path route, the gateway's origin shared by every site. */
  shared: boolean;
}

/**
 * Site answers for objects (conditional requests, ranges, compression, HEAD), redirects and the
 * built-in pages, returned to the site edge, which writes them. On a hit (headers prepared, body
 * in memory) the answer is returned synchronously; misses return a promise.
 */
export class SiteResponder {
  private readonly logger = new Logger('site');

  constructor(
    private readonly reader: ObjectReader,
    private readonly bodies: SiteBodyCache,
  ) {}

  object(req: SiteRequest, answer: ObjectChoice): SiteAnswer | Promise<SiteAnswer> {
    const p = this.prepared(answer);
    const headers = req.headers;
    const ranged = answer.status === 200 && headers.range !== undefined;
    let coding: Coding | null = null;
    let rep = p.identity;
    if (p.compressible && !ranged) {
      coding = negotiateCoding(headers['accept-encoding']);
      if (coding !== null) {
        const variant = p.variants[coding];
        if (variant === undefined) return this.compressThenAnswer(req, answer, p, coding);
        if (variant === false) coding = null;
        else rep = variant;
      }
    }
    const extra = requestHeaders(req, answer);
    if (
      answer.status === 200 &&
      ifNoneMatchMatches(requestHeader(req, 'if-none-match'), rep.etag)
    ) {
      return { status: 304, headers: withExtra(rep.rawNotModified, extra), body: null };
    }
    if (ranged && ifRangeAllowsRange(requestHeader(req, 'if-range'), rep.etag)) {
      const range = parseRange(requestHeader(req, 'range'), answer.object.size);
      if (range.kind !== 'none') return this.ranged(req, p, range, extra);
    }
    const full = withExtra(rep.rawFull, extra);
    if (req.method === 'HEAD') return { status: answer.status, headers: full, body: null };
    const cached = coding
      ? this.bodies.getVariant(p.object, coding)
      : this.bodies.getIdentity(p.object);
    if (cached) {
      const sent = coding ? full : withExtra(digested(p, cached), extra);
      return { status: answer.status, headers: sent, body: cached };
    }
    return this.loaded(answer.status, full, p, coding);
  }

  redirect(policy: SitePolicy, location: string, shared: boolean, status = 308): SiteAnswer {
    const headers = headerList(securityHeaders(policy, shared));
    headers.push('location', location, 'content-type', 'text/plain; charset=utf-8');
    return bufferAnswer(status, headers, Buffer.from(`Redirecting to ${location}\n`));
  }

  /**
   * A built-in page. 404 and 410 are cached like the site's content (`policy`), the others
   * (refusals and failures) never.
   */
  page(page: BuiltInPage, policy?: SitePolicy, extra?: HeaderSet): SiteAnswer {
    const version = policy?.version;
    const robots = policy?.robots;
    let headers = extra;
    if (version !== undefined) headers = { ...headers, 'x-tape-version': version };
    if (robots !== undefined) headers = { ...headers, 'x-robots-tag': robots };
    return pageAnswer(page, policy?.cacheControl, headers);
  }

  /**
   * The prepared answers of an object in a snapshot (built once, then memoised in it). A
   * hostname route's 200 is keyed by the object itself, so a hit hashes no string.
   */
  prepared(
    answer: Pick<ObjectChoice, 'snapshot' | 'object' | 'status' | 'shared' | 'policy'>,
  ): Prepared {
    const key = answer.status === 200 ? answer.object : `${answer.status}:${answer.object.name}`;
    const policy = answer.policy ?? answer.snapshot.policy;
    let memos = answer.shared ? sharedMemo(answer.snapshot) : answer.snapshot.prepared;
    // Per path policy (a site's `_headers`); one built for a single request is not kept.
    if (policy !== answer.snapshot.policy) {
      memos = policy.memoised === true ? subMemo(memos, policy) : new Map();
    }
    const memo = memos.get(key) as Prepared | undefined;
    if (memo) return memo;
    const { object, status, shared } = answer;
    const compressible = compressionEligible(object, this.bodies.maxObjectBytes);
    const p: Prepared = {
      object,
      status,
      policy,
      shared,
      compressible,
      identity: representationHeaders(object, policy, {
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

  private async compressThenAnswer(
    req: SiteRequest,
    answer: ObjectChoice,
    p: Prepared,
    coding: Coding,
  ): Promise<SiteAnswer> {
    let compressed: Buffer | null;
    try {
      compressed = await this.bodies.loadVariant(p.object, coding);
    } catch (err) {
      return this.contentFailure(p.object, err);
    }
    p.variants[coding] =
      compressed === null
        ? false
        : representationHeaders(p.object, p.policy, {
            status: p.status,
            coding,
            bodyLength: compressed.length,
            compressible: true,
            shared: p.shared,
          });
    return this.object(req, answer);
  }

  /** The body once loaded: from the caches, or streamed from the track store. */
  private async loaded(
    status: number,
    headers: HeaderList,
    p: Prepared,
    coding: Coding | null,
  ): Promise<SiteAnswer> {
    try {
      if (coding !== null) {
        const body =
          this.bodies.getVariant(p.object, coding) ??
          (await this.bodies.loadVariant(p.object, coding));
        if (body) return { status, headers, body };
      }
      if (this.bodies.cacheable(p.object)) {
        const body = await this.bodies.loadIdentity(p.object);
        return { status, headers: [...headers, 'content-digest', contentDigest(body)], body };
      }
      const opened = await this.open(p.object);
      const body = opened.size === 0 ? Buffer.alloc(0) : opened.read(0, opened.size - 1);
      return { status, headers, body };
    } catch (err) {
      return this.contentFailure(p.object, err);
    }
  }

  private async ranged(
    req: SiteRequest,
    p: Prepared,
    range: Exclude<ReturnType<typeof parseRange>, { kind: 'none' }>,
    extra: HeaderSet | null,
  ): Promise<SiteAnswer> {
    const size = p.object.size;
    const base = { ...p.identity.full, ...extra };
    if (range.kind === 'unsatisfiable') {
      const headers = {
        ...withoutBody(base),
        'content-range': unsatisfiedContentRange(size),
        'content-length': '0',
      };
      return { status: 416, headers: headerList(headers), body: null };
    }
    let source: (start: number, end: number) => Readable;
    try {
      source = await this.rangeSource(p.object);
    } catch (err) {
      return this.contentFailure(p.object, err);
    }
    const head = req.method === 'HEAD';
    if (range.kind === 'single') {
      const headers = {
        ...base,
        'content-range': contentRange(range, size),
        'content-length': decimalText(range.end - range.start + 1),
      };
      return {
        status: 206,
        headers: headerList(headers),
        body: head ? null : source(range.start, range.end),
      };
    }
    const multipart = multipartByteranges(range.ranges, size, contentTypeOf(p.object));
    const headers = {
      ...base,
      'content-type': multipart.contentType,
      'content-length': decimalText(multipart.contentLength),
    };
    return {
      status: 206,
      headers: headerList(headers),
      body: head ? null : multipart.body(source),
    };
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
    return this.reader.open(trackRefOf(object));
  }

  /** Storage failed the object (missing or failing its commitment): 502, never its bytes. */
  private contentFailure(object: SiteObject, err: unknown): SiteAnswer {
    if (!(err instanceof TrackStoreError)) throw err;
    this.logger.error(
      `object ${object.name} (track ${object.commitmentHex}) cannot be served: ${err.message}`,
    );
    return this.page(
      err instanceof TrackStoreUnavailableError ? PAGES.storeUnavailable : PAGES.badContent,
    );
  }
}

/** The headers an object answer takes from its request: CORS and the download disposition. */
function requestHeaders(req: SiteRequest, answer: ObjectChoice): Record<string, string> | null {
  let extra: Record<string, string> | null = null;
  const origin = requestHeader(req, 'origin');
  if (origin !== undefined) {
    const allowed = allowedOrigin(answer.snapshot.policy, origin);
    if (allowed) {
      extra = {
        'access-control-allow-origin': allowed,
        'access-control-expose-headers': EXPOSED_HEADERS,
      };
    }
  }
  if (answer.download && answer.status === 200) {
    extra ??= {};
    extra['content-disposition'] = attachmentDisposition(fileNameOf(answer.object.name));
  }
  return extra;
}

/** The identity headers with the body's RFC 9530 digest, memoised with the prepared answer. */
function digested(p: Prepared, body: Buffer): HeaderList {
  p.digested ??= [...p.identity.rawFull, 'content-digest', contentDigest(body)];
  return p.digested;
}

/** Prepared headers as they are (no copy on a hit), or followed by the request's own. */
function withExtra(prepared: HeaderList, extra: HeaderSet | null): HeaderList {
  return extra === null ? prepared : [...prepared, ...headerList(extra)];
}

/** Path-route answers are memoised apart: same keys, other headers (the sandbox). */
const SHARED_ORIGIN = Symbol('shared-origin answers');

function sharedMemo(snapshot: SiteSnapshot): Map<unknown, unknown> {
  return subMemo(snapshot.prepared, SHARED_ORIGIN);
}

/** A memo inside a memo: per origin kind, then per path policy (a site's `_headers`). */
function subMemo(memos: Map<unknown, unknown>, key: unknown): Map<unknown, unknown> {
  let memo = memos.get(key) as Map<unknown, unknown> | undefined;
  if (!memo) {
    memo = new Map();
    memos.set(key, memo);
  }
  return memo;
}

function withoutBody(headers: HeaderSet): Record<string, string> {
  const { 'content-length': _length, 'content-encoding': _coding, ...rest } = headers;
  return rest;
}
