import { Injectable, Module, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AddressInfo } from 'node:net';
import { closeGatewayApp } from './gateway-app';
import { MainListener, MainListenerModule } from './http/main-listener';
import { ShutdownSignal, ShutdownSignalModule } from './http/shutdown-signal';

/**
 * A feature room's stand-in: an edge route of the main listener, and a dependency it closes in
 * its `onModuleDestroy`, where it also asks the gateway what a new request gets at that moment.
 */
@Injectable()
class ProbeEdge implements OnModuleInit, OnModuleDestroy {
  open = true;
  port = 0;
  seenWhileClosing: { status: number; body: string } | undefined;
  /** Whether the shutdown signal (which the S3 listener reads too) was given by then. */
  signalledWhileClosing: boolean | undefined;

  constructor(
    private readonly listener: MainListener,
    private readonly shutdown: ShutdownSignal,
  ) {}

  onModuleInit(): void {
    this.listener.addRoute('/probe', {
      tryServe: (_req, res) => {
        res.writeHead(this.open ? 200 : 500).end(this.open ? 'edge' : 'dependency closed');
        return true;
      },
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.open = false;
    this.signalledWhileClosing = this.shutdown.hasBegun;
    const answer = await fetch(`http://127.0.0.1:${this.port}/probe`);
    this.seenWhileClosing = { status: answer.status, body: await answer.text() };
  }
}

// Imported by the root: nearer to it than MainListenerModule, so destroyed before it, as the
// gateway's feature rooms (and the meter stores, Redis, the chain connection) are.
@Module({ imports: [MainListenerModule, ShutdownSignalModule], providers: [ProbeEdge] })
class ProbeModule {}

describe('closeGatewayApp', () => {
  it('makes the main listener answer 503 before any module closes its dependencies', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [ProbeModule] }).compile();
    const app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), {
      logger: false,
    });
    await app.listen(0, '127.0.0.1');
    const probe = app.get(ProbeEdge);
    probe.port = (app.getHttpServer().address() as AddressInfo).port;
    expect(await (await fetch(`http://127.0.0.1:${probe.port}/probe`)).text()).toBe('edge');

    await closeGatewayApp(app);

    expect(probe.signalledWhileClosing).toBe(true);
    expect(probe.seenWhileClosing).toEqual({
      status: 503,
      body: 'the gateway is shutting down: retry shortly\n',
    });
  });
});
