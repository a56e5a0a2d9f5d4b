import {
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleDestroy,
  Optional,
} from '@nestjs/common';
import Fastify, { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyListenerTimeouts, watchBodyIdle } from '../http/listener-timeouts';
import { capGatewayListener } from '../http/connection-cap';
import { answerInOrder, lingerAfterAnswer } from '../http/lingering-close';
import { GatewayConfig } from '../config/app-config';
import { MeteringConfig } from '../config/metering.config';
import { TrustedProxies } from '../http/trusted-proxies';
import { S3Config } from '../config/s3.config';
import { RequestObserver } from '../observability/request-observer';
import { originForm } from '../http/request-target';
import { ListenerDrain } from '../http/listener-drain';
import { ShutdownSignal } from '../http/shutdown-signal';
import { newRequestId, writeS3ClientError } from './s3-client-error';
import { S3Response } from './s3-context';
import { S3Error } from './s3-error';
import { parseS3Address, S3Address } from './s3-address';
import { resourceOf, S3RequestHandler } from './s3-request-handler';
import { errorXml } from './xml/s3-xml-responses';

const METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'OPTIONS'] as const;
/** Longest path parameter the router accepts: 1024-byte keys percent-encoded, with room. */
const MAX_PATH_PARAM = 16384;

/**
 * The S3 listener: its own Fastify instance on its own port (`gateway.s3.port`, same host as
 * the gateway), owning the root of that listener, in the gateway's process and DI container.
 *
 * Bodies are never parsed or buffered by Fastify: every content type goes to a catch-all parser
 * that leaves the stream to the operation, which enforces its own limits. The Content-Type
 * header is taken out of Fastify's sight first, since object content types are arbitrary client
 * strings that Fastify would otherwise refuse with 415 before S3 gets to see the request.
 *
 * Shutdown: from the `ShutdownSignal` on (given before Nest closes any module, see
 * src/http/shutdown-signal.ts), every new request is answered `503 ServiceUnavailable` with
 * `Retry-After` and `Connection: close`, before any operation runs, and not logged as an error
 * (an expected answer; the access log and metrics count it). Operations in flight finish while
 * the listener drains (`ListenerDrain`, src/http/listener-drain.ts), before the meter stores,
 * Redis, the credentials and the chain connection close; the listener itself closes last
 * (`onApplicationShutdown`). Its `onModuleDestroy` is the fallback for an app closed without
 * the signal.
 */
@Injectable()
export class S3Server implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('s3');
  private readonly contentTypes = new WeakMap<IncomingMessage, string>();
  private app: FastifyInstance | undefined;
  private bound: AddressInfo | undefined;
  private closing = false;

  constructor(
    private readonly config: S3Config,
    private readonly gateway: GatewayConfig,
    private readonly metering: MeteringConfig,
    private readonly handler: S3RequestHandler,
    shutdown: ShutdownSignal,
    private readonly drain: ListenerDrain,
    /** Metrics and the access log (absent when a test builds the S3 module alone). */
    @Optional() private readonly observer?: RequestObserver,
  ) {
    shutdown.onBegin(() => {
      this.closing = true;
    });
  }

  /** Where the listener is bound (port 0 in the config picks a free one). */
  get address(): { host: string; port: number } {
    if (!this.bound) throw new Error('the S3 listener is not started');
    return { host: this.bound.address, port: this.bound.port };
  }

  get url(): string {
    const { host, port } = this.address;
    return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  }

  async onApplicationBootstrap(): Promise<void> {
    const app = this.build();
    await app.listen({ port: this.config.port, host: this.gateway.host });
    this.app = app;
    this.bound = app.server.address() as AddressInfo;
    this.logger.log({ event: 'listening', url: this.url });
  }

  /** The fallback when the app is closed without the shutdown signal first (see above). */
  onModuleDestroy(): void {
    this.closing = true;
  }

  async onApplicationShutdown(): Promise<void> {
    const app = this.app;
    this.app = undefined;
    if (app) await app.close();
  }

  private build(): FastifyInstance {
    const trusted = this.metering.trusted_proxies;
    const proxies = TrustedProxies.parse(trusted);
    const app = Fastify({
      logger: false,
      trustProxy: trusted.length > 0 ? trusted : false,
      genReqId: newRequestId,
      requestIdHeader: false,
      exposeHeadRoutes: false,
      // Not Fastify's JSON 503 while it closes (S3 clients fail on a JSON body): by then the
      // shutdown signal has made the onRequest hook below answer S3's own 503.
      return503OnClosing: false,
      forceCloseConnections: 'idle',
      // Our own server, to take `Expect: 100-continue` from Node: Node would answer 100 at once,
      // and a client would send a whole part before hearing that the tape is full.
      serverFactory: (fastifyHandler) => {
        // Pipelined requests run in order, and one behind a refused body, on a connection that
        // announced it closes, is dropped unanswered and unexecuted (src/http/lingering-close.ts).
        const handler = answerInOrder(fastifyHandler);
        const server = createServer(handler);
        server.on('checkContinue', handler);
        // Any other Expect value: Node would answer 417 on its own; S3 ignores the header.
        server.on('checkExpectation', handler);
        applyListenerTimeouts(server, this.gateway);
        capGatewayListener(
          server,
          this.gateway,
          's3',
          (event) => this.logger.warn(event),
          (address) => proxies.containsAddress(address),
        );
        server.setTimeout(this.config.idle_timeout_ms);
        this.drain.register('s3', server);
        return server;
      },
      // An absolute-form target whose authority is the Host becomes origin-form
      // (src/http/request-target.ts); any other target stays as sent, and the address parser
      // refuses it (InvalidURI) instead of the router quietly dropping its scheme and authority.
      rewriteUrl: (req) => {
        const url = originForm(req);
        return typeof url === 'string' ? url : (req.url ?? '/');
      },
      routerOptions: {
        maxParamLength: MAX_PATH_PARAM,
        ignoreDuplicateSlashes: false,
        ignoreTrailingSlash: false,
      },
      frameworkErrors: (error, request, reply) => {
        const code = (error as { code?: string }).code;
        const s3 =
          code === 'FST_ERR_BAD_URL' || code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? new S3Error('InvalidURI', "Couldn't parse the specified URI.")
            : new S3Error('InvalidRequest', error.message);
        this.sendError(request, reply, s3);
      },
      clientErrorHandler: writeS3ClientError,
    });
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));
    app.addHook('onRequest', (request, _reply, done) => {
      watchBodyIdle(request.raw, this.gateway.body_idle_timeout_ms, this.config.idle_timeout_ms);
      const contentType = request.headers['content-type'];
      if (contentType !== undefined) {
        this.contentTypes.set(request.raw, contentType);
        delete request.headers['content-type'];
      }
      done();
    });
    const observer = this.observer;
    if (observer) {
      // The same writer as the main listener's (src/observability/access-log.ts).
      app.addHook('onRequest', (request, _reply, done) => {
        observer.start(request.raw);
        done();
      });
      app.addHook('onResponse', (request, reply, done) => {
        observer.finish('s3', 's3', request.raw, reply.raw, request.id);
        done();
      });
    }
    // After the observer's start, so the refusal is counted and logged like any answer.
    app.addHook('onRequest', (request, reply, done) => {
      if (this.closing) {
        this.writeError(request, reply, shuttingDown());
        return;
      }
      done();
    });
    app.setErrorHandler((error, request, reply) => {
      const status = (error as { statusCode?: number }).statusCode ?? 500;
      this.sendError(
        request,
        reply,
        status >= 500
          ? this.handler.toS3Error(error)
          : new S3Error('InvalidRequest', (error as Error).message),
      );
    });
    app.setNotFoundHandler((request, reply) => {
      this.sendError(
        request,
        reply,
        new S3Error('MethodNotAllowed', `the specified method ${request.method} is not allowed`, {
          Method: request.method,
        }),
      );
    });
    // Not an async handler: Fastify would answer again when its promise resolved before a
    // streamed body had started. `handle` catches everything itself.
    const handle = (request: FastifyRequest, reply: FastifyReply): void => {
      void this.handle(request, reply);
    };
    app.route({ method: [...METHODS], url: '/', handler: handle });
    app.route({ method: [...METHODS], url: '/*', handler: handle });
    return app;
  }

  private async handle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // The one parse of the address: the handler and its error mapping get this same address.
    let address: S3Address;
    try {
      address = parseS3Address(
        request.raw.url ?? '/',
        request.headers.host,
        this.config.virtual_host,
      );
    } catch (error) {
      this.sendError(request, reply, this.handler.toS3Error(error));
      return;
    }
    try {
      const response = await this.handler.handle(request.raw, address, {
        requestId: request.id,
        clientIp: request.ip,
        contentType: this.contentTypes.get(request.raw),
        origin: `${request.protocol}://${request.host}`,
        sendContinue: () => {
          const res = reply.raw;
          if (request.headers.expect?.toLowerCase() === '100-continue' && !res.headersSent) {
            res.writeContinue();
          }
        },
      });
      this.send(request, reply, response);
    } catch (error) {
      this.sendError(request, reply, this.handler.toS3Error(error, address), address);
    }
  }

  private send(request: FastifyRequest, reply: FastifyReply, response: S3Response): void {
    this.commonHeaders(request, reply);
    reply.code(response.status);
    for (const [name, value] of Object.entries(response.headers ?? {})) reply.header(name, value);
    if (request.method === 'HEAD' || response.body === undefined) {
      if (typeof response.body === 'object') response.body.destroy();
      void reply.send();
      return;
    }
    void reply.send(response.body);
  }

  private sendError(
    request: FastifyRequest,
    reply: FastifyReply,
    error: S3Error,
    address?: S3Address,
  ): void {
    // A 5xx refusal says why in the log (an InternalError was logged with its cause already).
    if (!reply.sent && error.status >= 500 && error.code !== 'InternalError') {
      this.logger.warn({
        event: 'error_answer',
        msg: `S3 ${request.method} ${request.url} answered ${error.status} ${error.code}: ${error.message}`,
        method: request.method,
        url: request.url,
        status: error.status,
        code: error.code,
        error: error.message,
        id: request.id,
      });
    }
    this.writeError(request, reply, error, address);
  }

  /** Writes the error answer, or ends a connection whose answer has begun already. */
  private writeError(
    request: FastifyRequest,
    reply: FastifyReply,
    error: S3Error,
    address?: S3Address,
  ): void {
    if (reply.sent) {
      request.raw.socket?.destroy();
      return;
    }
    this.commonHeaders(request, reply);
    reply.code(error.status);
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    if (request.method === 'HEAD') {
      void reply.send();
      return;
    }
    reply.header('content-type', 'application/xml');
    void reply.send(errorXml(error, resourceOf(address), request.id));
  }

  private commonHeaders(request: FastifyRequest, reply: FastifyReply): void {
    reply.header('x-amz-request-id', request.id);
    reply.header('x-amz-id-2', randomBytes(24).toString('base64'));
    // A body the operation did not read to its end (refused early, or failed a check) is not
    // drained for another request: the connection is closed after the answer, lingering so
    // that a client still sending sees the answer instead of a reset.
    if (!request.raw.complete) {
      reply.header('connection', 'close');
      lingerAfterAnswer(request.raw, reply.raw);
    }
  }
}

/**
 * The answer to every request that arrives once shutdown has begun: clients retry a 503;
 * `Connection: close` sends the next request over a new connection (to another replica, behind
 * a load balancer).
 */
function shuttingDown(): S3Error {
  return new S3Error(
    'ServiceUnavailable',
    'the gateway is shutting down: retry shortly',
    {},
    { 'retry-after': '5', connection: 'close' },
  );
}
