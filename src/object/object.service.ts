import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { MeteringService } from '../metering/metering.service';
import {
  ByteRange,
  contentRange,
  parseRange,
  RangeResult,
  unsatisfiedContentRange,
} from '../tracks/byte-range';
import { ifNoneMatchMatches, ifRangeAllowsRange } from '../tracks/conditional-request';
import { multipartByteranges } from '../tracks/multipart-byteranges';
import { ObjectReader, OpenedObject } from '../tracks/object-reader';
import {
  IntegrityError,
  TrackStoreError,
  TrackStoreUnavailableError,
} from '../tracks/track-errors';
import { ERROR_CACHE_CONTROL } from './object-headers';
import { objectErrors } from './object-errors';
import { primeStream } from './primed-stream';
import { StreamedBytesCollector } from './streamed-bytes-collector';
import { ServableTrack, TrackResolver } from './track-resolver';

const WHOLE: RangeResult = { kind: 'none' };
export const SEND_STALL_MS = 60_000;

/**
 * `GET|HEAD /object/{track}` (docs/object.md): resolves the track on chain, answers conditional
 * and range requests, and sends verified bytes: small hot objects straight from the reader's
 * verified cache (no copy), everything else as a stream with backpressure. Bytes are never sent
 * before their chunk passed its commitment; a failure before the status line is a 502, a
 * failure after it cuts the connection.
 */
@Injectable()
export class ObjectService {
  private readonly logger = new Logger('object');

  constructor(
    private readonly resolver: TrackResolver,
    private readonly reader: ObjectReader,
    private readonly metering: MeteringService,
    private readonly collector: StreamedBytesCollector,
  ) {}

  async serve(req: FastifyRequest, reply: FastifyReply, address: string): Promise<void> {
    try {
      const track = this.resolver.peek(address) ?? (await this.resolver.resolve(address));
      await this.answer(req, reply, track);
    } catch (err) {
      // Refusals change (certification, extension) and must not be cached as immutable.
      if (!reply.sent) reply.header('cache-control', ERROR_CACHE_CONTROL);
      throw err;
    }
  }

  private async answer(req: FastifyRequest, reply: FastifyReply, track: ServableTrack) {
    const { headers, etag } = track;
    if (ifNoneMatchMatches(header(req, 'if-none-match'), etag)) {
      return void reply.code(304).headers(headers.notModified).send();
    }
    const size = track.ref.size;
    const range =
      req.headers.range !== undefined && ifRangeAllowsRange(header(req, 'if-range'), etag)
        ? parseRange(header(req, 'range'), size)
        : WHOLE;
    const head = req.method === 'HEAD';
    switch (range.kind) {
      case 'unsatisfiable':
        reply.header('content-range', unsatisfiedContentRange(size));
        throw objectErrors.unsatisfiable(size);
      case 'none': {
        const body = head ? undefined : await this.body(track, { start: 0, end: size - 1 });
        await this.charge(req, reply, head ? 0 : size, body);
        reply.code(200).headers(headers.representation).header('content-length', String(size));
        return this.send(reply, body);
      }
      case 'single': {
        const length = range.end - range.start + 1;
        const body = head ? undefined : await this.body(track, range);
        await this.charge(req, reply, head ? 0 : length, body);
        reply
          .code(206)
          .headers(headers.representation)
          .header('content-range', contentRange(range, size))
          .header('content-length', String(length));
        return this.send(reply, body);
      }
      case 'multiple':
        return this.multipart(req, reply, track, range.ranges, head);
    }
  }

  private async multipart(
    req: FastifyRequest,
    reply: FastifyReply,
    track: ServableTrack,
    ranges: ByteRange[],
    head: boolean,
  ): Promise<void> {
    const size = track.ref.size;
    const multipart = multipartByteranges(ranges, size, track.headers.contentType);
    let body: Readable | undefined;
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
    await this.charge(req, reply, head ? 0 : multipart.contentLength, body);
    reply
      .code(206)
      .headers(track.headers.representation)
      .header('content-type', multipart.contentType)
      .header('content-length', String(multipart.contentLength));
    return this.send(reply, body);
  }

  /**
   * Sends the body (none for HEAD). A client that accepts nothing for SEND_STALL_MS loses its
   * connection, like nginx's send_timeout: a stalled reader must not hold a socket and a file
   * open forever. Progress, however slow, resets the timer.
   */
  private send(reply: FastifyReply, body: Buffer | Readable | undefined): void {
    if (body !== undefined) reply.raw.setTimeout(SEND_STALL_MS, () => reply.raw.destroy());
    void reply.send(body);
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

  /** Charges the bytes about to be sent; refused, the prepared body is released unsent. */
  private async charge(
    req: FastifyRequest,
    reply: FastifyReply,
    bytes: number,
    body: Buffer | Readable | undefined,
  ): Promise<void> {
    if (bytes === 0) return;
    try {
      await this.metering.enforceByteBudget(req, reply, bytes);
    } catch (err) {
      if (body instanceof Readable) body.destroy();
      throw err;
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

function header(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
