import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { errorAnswer, logErrorAnswer } from '../http/error-answer';
import { writeErrorBody } from '../http/error-reply';
import { endWithBody } from '../http/response-body';
import { MeteringGate } from '../metering/metering-gate';
import { ObjectAnswer } from './object-answer';
import { ObjectRefusal } from './object-errors';
import { ERROR_CACHE_CONTROL } from './object-route-headers';
import { ObjectService } from './object.service';

/** The route as the error log names it (the Nest route of the same path has this pattern). */
const OBJECT_ROUTE = '/object/:track';

/**
 * A client that accepts nothing for this long loses its connection, like nginx's send_timeout:
 * a stalled reader must not hold a socket and a file open forever. Progress resets the timer.
 */
export const SEND_STALL_MS = 60_000;

/**
 * The one writer of `GET|HEAD /object/{track}` answers, for both ways in: the edge's warm reads
 * (object-edge.ts) and the controller (object.controller.ts). ObjectService's answer, its bytes
 * charged to the client's byte budget (the metering gate), then one `writeHead` and the body; a
 * refusal leaves as the stable error body with `Cache-Control: no-store` (refusals change: a
 * track gets certified, a tape extended). `head` carries the headers the request budget put on
 * the answer.
 */
@Injectable()
export class ObjectAnswerWriter {
  private readonly logger = new Logger('http');

  constructor(
    private readonly objects: ObjectService,
    private readonly gate: MeteringGate,
  ) {}

  /** Answers `GET|HEAD /object/{address}` on `res`, after `head` (raw name/value pairs). */
  async respond(
    req: IncomingMessage,
    res: ServerResponse,
    address: string,
    head: string[],
  ): Promise<void> {
    let answer: ObjectAnswer;
    try {
      answer = await this.objects.answer(req, address);
      if (answer.bytes > 0) await this.charge(req, head, answer);
    } catch (err) {
      return this.refuse(req, res, head, err);
    }
    try {
      this.write(res, head, answer);
    } catch (err) {
      // A header Node refuses (nothing was sent): the body is released, the answer a logged 500.
      if (answer.body instanceof Readable) answer.body.destroy();
      this.refuse(req, res, [], err);
    }
  }

  /** A refusal or failure as the stable error body, never cached; once headers are out, a cut. */
  refuse(req: IncomingMessage, res: ServerResponse, head: string[], err: unknown): void {
    const answer = errorAnswer(err);
    logErrorAnswer(this.logger, answer, { method: req.method, url: req.url, route: OBJECT_ROUTE });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (res.destroyed) return;
    for (let i = 0; i < head.length; i += 2) res.setHeader(head[i], head[i + 1]);
    res.setHeader('cache-control', ERROR_CACHE_CONTROL);
    if (err instanceof ObjectRefusal) {
      for (const name in err.headers) res.setHeader(name, err.headers[name]);
    }
    writeErrorBody(res, answer.status, answer.body);
  }

  /** Charges the bytes about to be sent; refused, the prepared body is released unsent. */
  private async charge(req: IncomingMessage, head: string[], answer: ObjectAnswer) {
    try {
      // Over budget, the gate sets the refusal's RateLimit headers, after the request budget's.
      await this.gate.enforceBytes(req, { setHeader: (n, v) => head.push(n, v) }, answer.bytes);
    } catch (err) {
      if (answer.body instanceof Readable) answer.body.destroy();
      throw err;
    }
  }

  /** One writeHead with the whole list; a body that stalls for SEND_STALL_MS loses its connection. */
  private write(res: ServerResponse, head: string[], answer: ObjectAnswer): void {
    const body = answer.body;
    if (res.destroyed) {
      if (body instanceof Readable) body.destroy();
      return;
    }
    const headers = answer.headers;
    for (const name in headers) head.push(name, headers[name]);
    res.writeHead(answer.status, head);
    if (body !== null) res.setTimeout(SEND_STALL_MS, () => res.destroy());
    endWithBody(res, body);
  }
}
