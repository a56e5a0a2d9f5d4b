import { Injectable, Logger, Module, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeGatewayApp } from './gateway-app';
import { MainListener, MainListenerModule } from './http/main-listener';
import { ShutdownSignal, ShutdownSignalModule } from './http/shutdown-signal';

/**
 * A feature room's stand-in: edge routes of the main listener that answer from a dependency it
 * closes in its `onModuleDestroy` (`/slow` once `release()` is called, as a request in flight),
 * where it also records what the gateway looks like at that moment.
 */
@Injectable()
class ProbeEdge implements OnModuleInit, OnModuleDestroy {
  open = true;
  port = 0;
  slowStarted = false;
  release = (): void => undefined;
  /** At the dependency's close: whether the shutdown signal (which S3 reads too) was given… */
  signalledWhileClosing: boolean | undefined;
  /** …whether `/slow` had been answered, and whether the listener still took a connection. */
  slowAnsweredWhileClosing: boolean | undefined;
  acceptedWhileClosing: boolean | undefined;
  private slowAnswered = false;

  constructor(
    private readonly listener: MainListener,
    private readonly shutdown: ShutdownSignal,
  ) {}

  onModuleInit(): void {
    this.listener.addRoute('/probe', {
      tryServe: (_req, res) => {
        this.answer(res);
        return true;
      },
    });
    this.listener.addRoute('/slow', {
      tryServe: (_req, res) => {
        this.slowStarted = true;
        this.release = () => {
          this.answer(res);
          this.slowAnswered = true;
        };
        return true;
      },
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.open = false;
    this.signalledWhileClosing = this.shutdown.hasBegun;
    this.slowAnsweredWhileClosing = this.slowAnswered;
    this.acceptedWhileClosing = await fetch(`http://127.0.0.1:${this.port}/probe`).then(
      () => true,
      () => false,
    );
  }

  private answer(res: ServerResponse): void {
    res.writeHead(this.open ? 200 : 500).end(this.open ? 'edge' : 'dependency closed');
  }
}

// Imported by the root: nearer to it than MainListenerModule, so destroyed before it, as the
// gateway's feature rooms (and the meter stores, Redis, the chain connection) are.
@Module({ imports: [MainListenerModule, ShutdownSignalModule], providers: [ProbeEdge] })
class ProbeModule {}

async function newTestApp(): Promise<{ app: NestFastifyApplication; probe: ProbeEdge }> {
  const moduleRef = await Test.createTestingModule({ imports: [ProbeModule] }).compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), {
    logger: false,
  });
  await app.listen(0, '127.0.0.1');
  const probe = app.get(ProbeEdge);
  probe.port = (app.getHttpServer().address() as AddressInfo).port;
  return { app, probe };
}

describe('closeGatewayApp', () => {
  beforeEach(() => jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('signals, lets the request in flight finish with its dependency open, then closes the modules', async () => {
    const { app, probe } = await newTestApp();
    expect(await (await fetch(`http://127.0.0.1:${probe.port}/probe`)).text()).toBe('edge');
    const slow = fetch(`http://127.0.0.1:${probe.port}/slow`);
    while (!probe.slowStarted) await new Promise((resolve) => setTimeout(resolve, 5));

    const closed = closeGatewayApp(app, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(probe.signalledWhileClosing).toBeUndefined();
    probe.release();
    const answer = await slow;
    expect([answer.status, await answer.text()]).toEqual([200, 'edge']);
    await closed;

    expect(probe.signalledWhileClosing).toBe(true);
    expect(probe.slowAnsweredWhileClosing).toBe(true);
    expect(probe.acceptedWhileClosing).toBe(false);
  });

  it('cuts a request still in flight when the drain budget runs out, then closes the modules', async () => {
    const { app, probe } = await newTestApp();
    const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const slow = fetch(`http://127.0.0.1:${probe.port}/slow`);
    while (!probe.slowStarted) await new Promise((resolve) => setTimeout(resolve, 5));

    const started = Date.now();
    // 400 ms of grace: 200 for the drain, 200 for the modules.
    await closeGatewayApp(app, 400);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    // Not held by the request (its own close waits for nothing); exact timing: the e2e test.
    expect(Date.now() - started).toBeLessThan(1500);
    await expect(slow).rejects.toThrow();
    expect(warnings.mock.calls).toEqual([
      [expect.objectContaining({ event: 'shutdown_drain', drained: 0, cut: 1, budget_ms: 200 })],
    ]);
    expect([probe.signalledWhileClosing, probe.slowAnsweredWhileClosing]).toEqual([true, false]);
  });
});
