import { Injectable, Logger, Module } from '@nestjs/common';
import type { Server, ServerResponse } from 'node:http';
import { Server as NetServer, Socket } from 'node:net';

/** What one drain did, in connections: busy when it began and ended by themselves, cut. */
export interface DrainReport {
  drained: number;
  cut: number;
  ms: number;
  /** When some were cut: how many on each listener (`{ s3: 1 }`). */
  cut_by_listener?: Record<string, number>;
}

/** How often a drain looks at its connections (only while the gateway shuts down). */
const SWEEP_MS = 10;

/** The most of `gateway.shutdown_grace_ms` kept for the modules to close after the drain. */
export const MODULE_CLOSE_RESERVE_MS = 2000;

/**
 * The part of the grace period the listeners drain for: all but what the modules need to close
 * (their meter stores, Redis, the chain connection, the embedded network's ledger) before
 * main.ts's hard exit, `MODULE_CLOSE_RESERVE_MS` or half the grace when that is shorter.
 */
export function drainBudgetMs(graceMs: number): number {
  return Math.max(0, graceMs - Math.min(MODULE_CLOSE_RESERVE_MS, Math.floor(graceMs / 2)));
}

interface DrainedListener {
  name: string;
  server: Server;
  /** Open connections, by Node's 'connection' event: per connection, never per request. */
  sockets: Set<Socket>;
}

/**
 * The graceful drain of the gateway's public listeners (main and S3) on shutdown, as nginx,
 * Envoy or a Kubernetes pod does it. `closeGatewayApp` (src/gateway-app.ts) gives the
 * `ShutdownSignal` (new requests answered 503 with `Connection: close`), then drains, then lets
 * Nest close the modules, so a request already running finishes with its dependencies open.
 *
 * A drain, at once: every listener stops accepting connections; connections with no request
 * in progress are closed (kept-alive ones between requests, and ones that have sent nothing);
 * answers in progress whose head is not written yet get `Connection: close`. Then, until every
 * connection has ended or the budget runs out, the same again every few milliseconds (a
 * kept-alive connection is closed as soon as its answer has been sent). Past the budget the
 * connections left are cut and counted. One log line says what happened (`shutdown_drain`).
 *
 * Listeners register their Node server when they build it; the admin listener does not (its
 * `/metrics` and `/livez` answer until the modules have closed, src/admin/admin-server.ts).
 */
@Injectable()
export class ListenerDrain {
  private readonly logger = new Logger('gateway');
  private readonly listeners: DrainedListener[] = [];
  private draining: Promise<DrainReport> | undefined;
  /** Connections a sweep found without a byte received: closed if the next finds them so. */
  private readonly unused = new WeakSet<Socket>();

  /** Drains `server` with the others on shutdown; `name` is the listener's in the log. */
  register(name: string, server: Server): void {
    const sockets = new Set<Socket>();
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    this.listeners.push({ name, server, sockets });
  }

  /**
   * Drains every registered listener for at most `budgetMs`, then cuts what is left; resolves
   * when no connection of theirs is open. Later calls get the first call's report.
   */
  drain(budgetMs: number): Promise<DrainReport> {
    this.draining ??= this.run(budgetMs).then((report) => {
      const event = { event: 'shutdown_drain', ...report, budget_ms: budgetMs };
      if (report.cut > 0) this.logger.warn(event);
      else this.logger.log(event);
      return report;
    });
    return this.draining;
  }

  private async run(budgetMs: number): Promise<DrainReport> {
    const started = Date.now();
    // After the event loop's poll phase: connections and bytes that arrived with the signal are
    // accepted and read first (closing the listener resets connections not accepted yet).
    await new Promise((resolve) => setImmediate(resolve));
    for (const { server } of this.listeners) stopAccepting(server);
    this.sweep();
    const inFlight = this.open().filter((socket) => !this.unused.has(socket));
    const deadline = started + budgetMs;
    while (this.open().length > 0 && Date.now() < deadline) {
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(SWEEP_MS, deadline - Date.now())),
      );
      this.sweep();
    }
    const left = this.open();
    const stillOpen = new Set(left);
    const drained = inFlight.filter((socket) => !stillOpen.has(socket)).length;
    const cutBy: Record<string, number> = {};
    for (const { name, sockets } of this.listeners) {
      const cut = [...sockets].filter((socket) => !socket.destroyed);
      for (const socket of cut) socket.destroy();
      if (cut.length > 0) cutBy[name] = cut.length;
    }
    const report = { drained, cut: left.length, ms: Date.now() - started };
    return left.length > 0 ? { ...report, cut_by_listener: cutBy } : report;
  }

  private open(): Socket[] {
    return this.listeners.flatMap(({ sockets }) => [...sockets].filter((s) => !s.destroyed));
  }

  private sweep(): void {
    for (const listener of this.listeners) sweepListener(listener, this.unused);
  }
}

/**
 * net.Server's close, not http.Server's: http's also closes the idle connections with Node's
 * own test, which counts an answer as done once `end()` is called, and so cuts one whose last
 * bytes still wait in the socket for a slow reader (measured: about half of an 8 MiB answer
 * lost); it also stops the head and request timeouts, which keep bounding clients during the
 * drain this way. Fastify's own close later gets ERR_SERVER_NOT_RUNNING, which it expects.
 */
function stopAccepting(server: Server): void {
  if (server.listening) NetServer.prototype.close.call(server);
}

/** The answer a connection is writing or about to write (Node's own field; no public one). */
function answerOf(socket: Socket): ServerResponse | null {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? null;
}

function sweepListener({ server, sockets }: DrainedListener, unused: WeakSet<Socket>): void {
  let flushing = false;
  for (const socket of sockets) {
    if (socket.destroyed) continue;
    const answer = answerOf(socket);
    if (answer === null) {
      // No byte received over two sweeps (bytes in flight are read in between): no request
      // begun, though Node counts such a connection as busy. Closing it at the first look
      // would reset a request whose bytes had arrived but were not read yet.
      if (socket.bytesRead > 0) continue;
      if (unused.has(socket)) socket.destroy();
      else unused.add(socket);
    } else if (!answer.headersSent) {
      // The client learns from the answer that the connection ends with it.
      answer.shouldKeepAlive = false;
    } else if (answer.writableEnded && !answer.writableFinished) {
      flushing = true;
    }
  }
  // Node's test of "no request in progress" (a head half received is in progress). Skipped while
  // an ended answer is still being flushed: Node's test would count it as done and cut it.
  if (!flushing) server.closeIdleConnections();
}

/** One ListenerDrain for the whole application: the modules of the listeners import this. */
@Module({ providers: [ListenerDrain], exports: [ListenerDrain] })
export class ListenerDrainModule {}
