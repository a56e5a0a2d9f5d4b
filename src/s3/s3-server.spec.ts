import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { GatewayConfig } from '../config/app-config';
import { MeteringConfig } from '../config/metering.config';
import { S3Config } from '../config/s3.config';
import { ListenerDrain } from '../http/listener-drain';
import { ShutdownSignal } from '../http/shutdown-signal';
import { S3Error } from './s3-error';
import { S3RequestHandler } from './s3-request-handler';
import { S3Server } from './s3-server';

/**
 * The S3 listener on a free loopback port, in front of a stand-in request handler that records
 * what reaches it; `/slow` waits until `finishSlow()`, as an operation in flight; `/busy` fails
 * with SlowDown, as an operation refused by a dependency.
 */
async function newTestServer() {
  const shutdown = new ShutdownSignal();
  const drain = new ListenerDrain();
  const handled: string[] = [];
  let finishSlow = (): void => undefined;
  const handler = {
    handle: async (req: IncomingMessage) => {
      handled.push(req.url ?? '');
      if (req.url === '/slow') await new Promise<void>((resolve) => (finishSlow = resolve));
      if (req.url === '/busy') throw new S3Error('SlowDown', 'the chain is busy');
      return { status: 200, body: 'done' };
    },
    toS3Error: (error: unknown) =>
      error instanceof S3Error ? error : new S3Error('InternalError', String(error)),
  };
  const sut = new S3Server(
    Object.assign(new S3Config(), { port: 0 }),
    new GatewayConfig(),
    new MeteringConfig(),
    handler as unknown as S3RequestHandler,
    shutdown,
    drain,
  );
  await sut.onApplicationBootstrap();
  const get = (path: string) => fetch(`${sut.url}${path}`);
  return { sut, shutdown, drain, handled, get, finishSlow: () => finishSlow() };
}

async function expectShuttingDown(answer: Response): Promise<void> {
  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toBe('5');
  expect(answer.headers.get('connection')).toBe('close');
  expect(answer.headers.get('content-type')).toBe('application/xml');
  expect(answer.headers.get('x-amz-request-id')).toBeTruthy();
  const body = await answer.text();
  expect(body).toContain('<Code>ServiceUnavailable</Code>');
  expect(body).toContain('<Message>the gateway is shutting down: retry shortly</Message>');
}

describe('S3Server shutdown', () => {
  it('answers every new request 503 ServiceUnavailable from the shutdown signal on; requests in flight finish', async () => {
    const { sut, shutdown, handled, get, finishSlow } = await newTestServer();
    try {
      expect(await (await get('/bkt/key')).text()).toBe('done');
      const slow = get('/slow');
      while (!handled.includes('/slow')) await new Promise((resolve) => setTimeout(resolve, 5));

      shutdown.begin();

      await expectShuttingDown(await get('/bkt/key'));
      await expectShuttingDown(await get('/'));
      expect(handled).toEqual(['/bkt/key', '/slow']);
      finishSlow();
      const inFlight = await slow;
      expect([inFlight.status, await inFlight.text()]).toEqual([200, 'done']);
    } finally {
      finishSlow();
      await sut.onApplicationShutdown();
    }
  });

  it('is drained: an operation in flight finishes, then the listener accepts no connection', async () => {
    const { sut, shutdown, drain, handled, get, finishSlow } = await newTestServer();
    const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    try {
      const slow = get('/slow');
      while (!handled.includes('/slow')) await new Promise((resolve) => setTimeout(resolve, 5));
      shutdown.begin();
      let drained = false;
      const report = drain.drain(5000).then((r) => ((drained = true), r));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(drained).toBe(false);
      finishSlow();
      const inFlight = await slow;
      expect([inFlight.status, await inFlight.text()]).toEqual([200, 'done']);
      expect(inFlight.headers.get('connection')).toBe('close');
      expect(await report).toMatchObject({ drained: 1, cut: 0 });
      await expect(get('/bkt/key')).rejects.toThrow();
      expect(warnings).not.toHaveBeenCalled();
    } finally {
      jest.restoreAllMocks();
      finishSlow();
      await sut.onApplicationShutdown();
    }
  });

  it('logs a refusal by an operation as an error answer, and not the shutdown 503s', async () => {
    const { sut, shutdown, get } = await newTestServer();
    const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      expect((await get('/busy')).status).toBe(503);
      expect(warnings.mock.calls).toEqual([
        [expect.objectContaining({ event: 'error_answer', code: 'SlowDown', url: '/busy' })],
      ]);
      shutdown.begin();
      await expectShuttingDown(await get('/bkt/key'));
      await expectShuttingDown(await get('/busy'));
      expect(warnings).toHaveBeenCalledTimes(1);
    } finally {
      jest.restoreAllMocks();
      await sut.onApplicationShutdown();
    }
  });

  it('closes itself when its module is destroyed, for an app closed without the signal', async () => {
    const { sut, handled, get } = await newTestServer();
    try {
      sut.onModuleDestroy();
      await expectShuttingDown(await get('/bkt/key'));
      expect(handled).toEqual([]);
    } finally {
      await sut.onApplicationShutdown();
    }
  });
});
