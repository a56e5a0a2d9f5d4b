import { Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClientIpResolver } from '../http/client-ip';
import type { RequestListener } from '../http/main-listener';
import { ExchangeAnchor } from '../http/shape-anchors';
import { AccessLog } from './access-log';
import { GatewayMetrics, ListenerName } from './gateway-metrics';
import type { RouteKind } from './route-kind';

const STARTED = Symbol('tape.observability.started');
type Started = { [STARTED]?: { at: number; written: number; url: string } };

/**
 * Metrics and the access log for one request, from its start to the end of its answer: the
 * main listener's dispatch is wrapped (`wrap`, around its edge routes too, registered by
 * ObservabilityModule), the S3 listener calls `start`/`finish` from its Fastify hooks.
 */
@Injectable()
export class RequestObserver {
  /** Each listener's last exchange of each status, held so their layouts outlive a collection. */
  private readonly anchors = {
    main: new ExchangeAnchor(),
    s3: new ExchangeAnchor(),
    admin: new ExchangeAnchor(),
    rpc: new ExchangeAnchor(),
  } satisfies Record<ListenerName, ExchangeAnchor>;

  constructor(
    private readonly metrics: GatewayMetrics,
    private readonly log: AccessLog,
    private readonly clients: ClientIpResolver,
  ) {}

  start(req: IncomingMessage): void {
    // The target as received (an edge may make it origin-form before it is answered).
    (req as Started)[STARTED] = {
      at: performance.now(),
      written: req.socket?.bytesWritten ?? 0,
      url: req.url ?? '/',
    };
  }

  finish(
    listener: ListenerName,
    kind: RouteKind,
    req: IncomingMessage,
    res: ServerResponse,
    id?: string,
  ): void {
    const started = (req as Started)[STARTED];
    if (started === undefined) return;
    (req as Started)[STARTED] = undefined;
    this.record(listener, kind, req, res, started.at, started.written, started.url, id);
  }

  /**
   * Wraps a listener (the main listener's dispatch, src/http/main-listener.ts): every request
   * is timed and counted under `kindOf(req)` once its answer is done.
   *
   * An answer ended on its socket before the listener returns (the site edge's answers from
   * memory, nearly every request a busy gateway sees) is counted there and then: its bytes are
   * in the socket's count once `end` returns, and nothing is left to wait for. Any other answer
   * (a later one, or one queued behind a pipelined request's) is counted when its response
   * closes. So the hot path allocates no per-request state and adds no listener.
   */
  wrap(
    listener: ListenerName,
    next: RequestListener,
    kindOf: (req: IncomingMessage) => RouteKind,
  ): RequestListener {
    // One shared listener (the response is `this`): no closure per request.
    const finish = this.finish.bind(this);
    function onClose(this: ServerResponse): void {
      finish(listener, kindOf(this.req), this.req, this);
    }
    return (req: IncomingMessage, res: ServerResponse) => {
      const at = performance.now();
      const written = req.socket?.bytesWritten ?? 0;
      const url = req.url ?? '/';
      next(req, res);
      // Ended on its socket (a pipelined answer waiting behind another has none yet, and its
      // bytes go out later), or destroyed: nothing more will be sent.
      if ((res.writableEnded && res.socket !== null) || res.destroyed) {
        this.record(listener, kindOf(req), req, res, at, written, url);
      } else {
        (req as Started)[STARTED] = { at, written, url };
        res.on('close', onClose);
      }
    };
  }

  private record(
    listener: ListenerName,
    kind: RouteKind,
    req: IncomingMessage,
    res: ServerResponse,
    at: number,
    written: number,
    url: string,
    id?: string,
  ): void {
    const ms = performance.now() - at;
    const bytes = Math.max(0, (req.socket?.bytesWritten ?? written) - written);
    const status = res.statusCode;
    this.anchors[listener].hold(req, res, status);
    this.metrics.observe(listener, kind, status, ms / 1000, bytes);
    if (!this.log.sampled()) return;
    this.log.write({
      listener,
      method: req.method ?? '',
      url,
      id,
      kind,
      status,
      bytes,
      ms,
      client: this.clients.clientKey(req),
    });
  }
}
