import { Injectable, OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayConfig } from '../config/app-config';
import { watchBodyIdle } from '../http/listener-timeouts';
import { EdgeRoute, MainListener } from '../http/main-listener';
import { MeterDecision } from '../metering/meter-decision';
import { MeteringGate } from '../metering/metering-gate';
import { appendRateLimitHeaders } from '../metering/rate-limit-headers';
import { ObjectAnswerWriter } from './object-answer-writer';
import { TrackResolver } from './track-resolver';

const OBJECT_PREFIX = '/object/';

/**
 * The warm reads of `GET|HEAD /object/{track}`, an edge route of the main listener
 * (src/http/main-listener.ts) on the gateway's own hosts: a GET or HEAD of a track whose chain
 * record is cached (TrackResolver.peek: certified, tape live; only valid addresses are ever
 * cached, so a hit needs no other validation) is answered here, before Fastify and Nest: the
 * `object` request budget, then the one writer of object answers (object-answer-writer.ts). On a
 * hot 256 KiB object Nest's router, guard and pipe and Fastify's reply cost about as much CPU as
 * sending the bytes (docs/object.md, "Performance"). Anything else (a cold track, a bad address,
 * another method) goes on to the controller, which resolves and validates, and whose guard
 * meters.
 */
@Injectable()
export class ObjectEdge implements EdgeRoute, OnModuleInit {
  private readonly bodyIdleMs: number;

  constructor(
    gateway: GatewayConfig,
    private readonly listener: MainListener,
    private readonly resolver: TrackResolver,
    private readonly writer: ObjectAnswerWriter,
    private readonly gate: MeteringGate,
  ) {
    this.bodyIdleMs = gateway.body_idle_timeout_ms;
  }

  onModuleInit(): void {
    this.listener.addRoute(OBJECT_PREFIX, this);
  }

  /** `url` starts with OBJECT_PREFIX (the main listener routes by it). */
  tryServe(req: IncomingMessage, res: ServerResponse, url: string): boolean {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const query = url.indexOf('?', OBJECT_PREFIX.length);
    const address = url.slice(OBJECT_PREFIX.length, query < 0 ? url.length : query);
    if (this.resolver.peek(address) === undefined) return false;
    // A body nobody reads still may not hold the connection (as Fastify's onRequest hook does).
    watchBodyIdle(req, this.bodyIdleMs);
    if (!this.gate.enabled) {
      void this.writer.respond(req, res, address, []);
      return true;
    }
    try {
      const decision = this.gate.check(req, 'object');
      if (decision instanceof Promise) {
        decision.then(
          (d) => this.admitted(req, res, address, d),
          (err: unknown) => this.writer.refuse(req, res, [], err),
        );
      } else {
        this.admitted(req, res, address, decision);
      }
    } catch (err) {
      this.writer.refuse(req, res, [], err);
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
    if (decision.allowed) void this.writer.respond(req, res, address, head);
    else this.writer.refuse(req, res, head, this.gate.error(decision));
  }
}
