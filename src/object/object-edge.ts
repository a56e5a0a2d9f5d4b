import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { GatewayConfig } from '../config/app-config';
import { EdgeRoute, EdgeRoutes } from '../http/edge-routes';
import { errorAnswer, logErrorAnswer } from '../http/error-answer';
import { writeErrorBody } from '../http/error-reply';
import { watchBodyIdle } from '../http/listener-timeouts';
import { endWithBody } from '../http/response-body';
import { MeterDecision } from '../metering/meter-decision';
import { MeteringGate } from '../metering/metering-gate';
import { appendRateLimitHeaders } from '../metering/rate-limit-headers';
import { ObjectAnswer } from './object-answer';
import { ObjectRefusal } from './object-errors';
import { ERROR_CACHE_CONTROL } from './object-route-headers';
import { ObjectService } from './object.service';
import { TrackResolver } from './track-resolver';

const OBJECT_PREFIX = '/object/';
/** The route as the error log names it (the Nest route of the same path has this pattern). */
const OBJECT_ROUTE = '/object/:track';

/**
 * A client that accepts nothing for this long loses its connection, like nginx's send_timeout:
 * a stalled reader must not hold a socket and a file open forever. Progress resets the timer.
 */
export const SEND_STALL_MS = 60_000;

/**
 * The one writer of `GET|HEAD /object/{track}` answers, and the route's warm path.
 *
 * - **Warm reads at the edge.** On the gateway's own hosts, a GET or HEAD of a track whose chain
 *   record is cached (TrackResolver.peek: certified, tape live; only valid addresses are ever
 *   cached, so a hit needs no other validation) is answered here, before Fastify and Nest: the
 *   `object` request budget, then `respond`. On a hot 256 KiB object Nest's router, guard and
 *   pipe and Fastify's reply cost about as much CPU as sending the bytes (docs/object.md,
 *   "Performance"). Anything else (a cold track, a bad address, another method) goes on to the
 *   controller, which resolves and validates, and whose guard meters.
 * - **`respond`**, for both ways in: ObjectService's answer, its bytes charged to the client's
 *   byte budget (the metering gate), then one `writeHead` and the body; a refusal leaves as the
 *   stable error body with `Cache-Control: no-store` (refusals change: a track gets certified, a
 *   tape extended). `head` carries the headers the request budget put on the answer.
 */
@Injectable()
export class ObjectEdge implements EdgeRoute, OnModuleInit {
  private readonly logger = new Logger('http');
  private readonly bodyIdleMs: number;

  constructor(
    gateway: GatewayConfig,
    private readonly routes: EdgeRoutes,
    private readonly resolver: TrackResolver,
    private readonly objects: ObjectService,
    private readonly gate: MeteringGate,
  ) {
    this.bodyIdleMs = gateway.body_idle_timeout_ms;
  }

  onModuleInit(): void {
    this.routes.add(this);
  }

  tryServe(req: IncomingMessage, res: ServerResponse, url: string): boolean {
    const method = req.method;
    if ((method !== 'GET' && method !== 'HEAD') || !url.startsWith(OBJECT_PREFIX)) return false;
    const query = url.indexOf('?', OBJECT_PREFIX.length);
    const address = url.slice(OBJECT_PREFIX.length, query < 0 ? url.length : query);
    if (this.resolver.peek(address) === undefined) return false;
    // A body nobody reads still may not hold the connection (as Fastify's onRequest hook does).
    watchBodyIdle(req, this.bodyIdleMs);
    if (!this.gate.enabled) {
      void this.respond(req, res, address, []);
      return true;
    }
    try {
      const decision = this.gate.check(req, 'object');
      if (decision instanceof Promise) {
        decision.then(
          (d) => this.admitted(req, res, address, d),
          (err: unknown) => this.refuse(req, res, [], err),
        );
      } else {
        this.admitted(req, res, address, decision);
      }
    } catch (err) {
      this.refuse(req, res, [], err);
    }
    return true;
  }

  private admitted(
    req: IncomingMessage,
    res: ServerResponse,
    address: string,
    decision: MeterDecision,
  ): void {
    const head: string[] = [];
    appendRateLimitHeaders(head, decision);
    if (decision.allowed) void this.respond(req, res, address, head);
    else this.refuse(req, res, head, this.gate.error(decision));
  }

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

  /** A refusal or failure as the stable error body, never cached; once headers are out, a cut. */
  private refuse(req: IncomingMessage, res: ServerResponse, head: string[], err: unknown): void {
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
}
