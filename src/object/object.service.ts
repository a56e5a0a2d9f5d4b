import { contentDigest } from '../tracks/content-digest';
import { Injectable, Logger } from '@nestjs/common';
import { Readable } from 'node:stream';
import { ByteRange, contentRange, parseRange, RangeResult } from '../tracks/byte-range';
import { ifNoneMatchMatches, ifRangeAllowsRange } from '../tracks/conditional-request';
import { multipartByteranges } from '../tracks/multipart-byteranges';
import { ObjectReader, OpenedObject } from '../tracks/object-reader';
import {
  IntegrityError,
  TrackStoreError,
  TrackStoreUnavailableError,
} from '../tracks/track-errors';
import { ObjectAnswer, ObjectRequest } from './object-answer';
import { objectErrors } from './object-errors';
import { primeStream } from './primed-stream';
import { StreamedBytesCollector } from './streamed-bytes-collector';
import { ServableTrack, TrackResolver } from './track-resolver';
import { requestHeader } from '../http/request-header';
import { decimalText } from '../http/decimal-text';

const WHOLE: RangeResult = { kind: 'none' };

/**
 * `GET|HEAD /object/{track}` (docs/object.md): resolves the track on chain, answers conditional
 * and range requests with verified bytes: small hot objects straight from the reader's verified
 * cache (no copy), everything else as a primed stream. Bytes are never sent before their chunk
 * passed its commitment; a failure before the status line is a 502 (thrown), a failure after it
 * cuts the connection. Returns the answer; the controller charges and writes it.
 */
@Injectable()
export class ObjectService {
  private readonly logger = new Logger('object');

  constructor(
    private readonly resolver: TrackResolver,
    private readonly reader: ObjectReader,
    private readonly collector: StreamedBytesCollector,
  ) {}

  async answer(req: ObjectRequest, address: string): Promise<ObjectAnswer> {
    const track = this.resolver.peek(address) ?? (await this.resolver.resolve(address));
    return this.answerTrack(req, track);
  }

  private async answerTrack(req: ObjectRequest, track: ServableTrack): Promise<ObjectAnswer> {
    const { headers, etag } = track;
    if (ifNoneMatchMatches(requestHeader(req, 'if-none-match'), etag)) {
      return { status: 304, headers: headers.notModified, body: null, bytes: 0 };
    }
    const size = track.ref.size;
    const range =
      req.headers.range !== undefined && ifRangeAllowsRange(requestHeader(req, 'if-range'), etag)
        ? parseRange(requestHeader(req, 'range'), size)
        : WHOLE;
    const head = req.method === 'HEAD';
    switch (range.kind) {
      case 'unsatisfiable':
        throw objectErrors.unsatisfiable(size);
      case 'none': {
        const body = head ? null : await this.body(track, { start: 0, end: size - 1 });
        const whole: Record<string, string> = {
          ...headers.representation,
          'content-length': String(size),
        };
        if (Buffer.isBuffer(body)) whole['content-digest'] = track.digest ??= contentDigest(body);
        return {
          status: 200,
          headers: whole,
          body,
          bytes: head ? 0 : size,
        };
      }
      case 'single': {
        const length = range.end - range.start + 1;
        const body = head ? null : await this.body(track, range);
        return {
          status: 206,
          headers: {
            ...headers.representation,
            'content-range': contentRange(range, size),
            'content-length': decimalText(length),
          },
          body,
          bytes: head ? 0 : length,
        };
      }
      case 'multiple':
        return this.multipart(track, range.ranges, head);
    }
  }

  private async multipart(
    track: ServableTrack,
    ranges: ByteRange[],
    head: boolean,
  ): Promise<ObjectAnswer> {
    const size = track.ref.size;
    const multipart = multipartByteranges(ranges, size, track.headers.contentType);
    let body: Readable | null = null;
    if (!head) {
      const opened = await this.open(track);
      // The first part is primed like a single range, so a bad first chunk is still a 502.
      let first: Readable | undefined = await this.primed(track, opened, ranges[0]);
      body = multipart.body((start, end) => {
        const part = first ?? this.partSource(track, opened, start, end);
        first = undefined;
        return part;
      });
      // A body refused or abandoned before its first part still holds that part's file open.
      body.once('close', () => first?.destroy());
    }
    return {
      status: 206,
      headers: {
        ...track.headers.representation,
        'content-type': multipart.contentType,
        'content-length': decimalText(multipart.contentLength),
      },
      body,
      bytes: head ? 0 : multipart.contentLength,
    };
  }

  /** The bytes of one range: a view of the verified cache, or a primed verified stream. */
  private async body(track: ServableTrack, range: ByteRange): Promise<Buffer | Readable> {
    if (range.end < range.start) return Buffer.alloc(0);
    let bytes = track.hot?.deref();
    if (!bytes) {
      const opened = await this.open(track);
      if (!opened.bytes) return this.primed(track, opened, range);
      bytes = opened.bytes;
      track.hot = new WeakRef(bytes);
    }
    return range.start === 0 && range.end === bytes.length - 1
      ? bytes
      : bytes.subarray(range.start, range.end + 1);
  }

  private async primed(track: ServableTrack, opened: OpenedObject, range: ByteRange) {
    if (opened.bytes) return Readable.from([opened.bytes.subarray(range.start, range.end + 1)]);
    try {
      return await primeStream(
        opened.read(range.start, range.end),
        (err) => this.logCut(track, err),
        (bytes) => this.collector.sent(bytes),
      );
    } catch (err) {
      throw this.storageFailure(track, err);
    }
  }

  /** Parts after the first: their failures can only cut the response, which is logged. */
  private partSource(track: ServableTrack, opened: OpenedObject, start: number, end: number) {
    if (opened.bytes) return Readable.from([opened.bytes.subarray(start, end + 1)]);
    const part = opened.read(start, end);
    part.once('error', (err) => this.logCut(track, err));
    return part;
  }

  private async open(track: ServableTrack): Promise<OpenedObject> {
    try {
      return await this.reader.open(track.ref);
    } catch (err) {
      throw this.storageFailure(track, err);
    }
  }

  /** Storage cannot give verified bytes: logged with the track, answered 502, never served. */
  private storageFailure(track: ServableTrack, err: unknown): unknown {
    if (!(err instanceof TrackStoreError)) return err;
    this.logger.error(
      `object ${track.address} (commitment ${track.commitmentHex}) not served: ${err.message}`,
    );
    if (err instanceof TrackStoreUnavailableError) return objectErrors.storeUnavailable();
    return err instanceof IntegrityError
      ? objectErrors.integrityFailure()
      : objectErrors.contentMissing();
  }

  private logCut(track: ServableTrack, err: Error): void {
    this.logger.error(
      `object ${track.address} (commitment ${track.commitmentHex}) response cut mid-stream: ${err.message}`,
    );
  }
}
