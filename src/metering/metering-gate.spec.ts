import { Controller, Get, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { validateConfig } from '../config/config-loader';
import { ConfigModule } from '../config/config.module';
import type { PeerRequest } from '../http/client-ip';
import { MemoryMeterStore } from './memory-meter-store';
import { Metered } from './metered.decorator';
import { MeteringGate } from './metering-gate';
import { MeteringModule } from './metering.module';
import { MeteringService } from './metering.service';

function newTestGate(metering: Record<string, unknown>) {
  const config = validateConfig({ gateway: { metering } }).gateway.metering;
  return { sut: new MeteringGate(new MeteringService(config, new MemoryMeterStore())) };
}

const client = (ip: string): PeerRequest => ({ headers: {}, socket: { remoteAddress: ip } });

describe('MeteringGate', () => {
  it('decides synchronously with the memory store and refuses past the budget', async () => {
    const { sut } = newTestGate({ site: { limit: 1, ttl_secs: 30 } });
    const first = sut.check(client('203.0.113.1'), 'site');
    expect(first).not.toBeInstanceOf(Promise);
    expect(first).toMatchObject({ allowed: true, remaining: 0, limit: 1 });
    expect(await sut.checkAsync(client('203.0.113.1'), 'site')).toMatchObject({ allowed: false });
  });

  it('writes the 429: RateLimit headers, Retry-After, no-store and the stable error body', async () => {
    const { sut } = newTestGate({ object: { limit: 1, ttl_secs: 30 } });
    await sut.checkAsync(client('203.0.113.2'), 'object');
    const refused = await sut.checkAsync(client('203.0.113.2'), 'object');
    const answer = sut.refusal(refused);
    expect(answer.status).toBe(429);
    const headers = Object.fromEntries(
      answer.headers.flatMap((v, i, all) => (i % 2 === 0 ? [[v, all[i + 1]]] : [])),
    );
    expect(headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'ratelimit-limit': '1',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '30',
      'retry-after': '30',
      'cache-control': 'no-store',
      'content-length': String(answer.body.length),
    });
    const body = JSON.parse(answer.body.toString()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('too_many_requests');
    expect(body.error.message).toMatch(
      /^rate limit for .* reached \(1 per window\); retry in 30 s$/,
    );
    expect(sut.error(refused).getResponse()).toEqual(body);
  });

  it("shapes S3's refusal: 503 SlowDown with Retry-After of at least one second", async () => {
    const { sut } = newTestGate({ s3_write: { limit: 1, ttl_secs: 20 } });
    await sut.checkAsync(client('203.0.113.3'), 's3_write');
    const refused = await sut.checkAsync(client('203.0.113.3'), 's3_write');
    expect(sut.slowDown(refused)).toEqual({
      code: 'SlowDown',
      message: 'please reduce your request rate',
      headers: { 'retry-after': '20' },
    });
    expect(sut.slowDown({ ...refused, retryAfterSecs: 0.2 }).headers['retry-after']).toBe('1');
  });
});

@Controller()
class TestController {
  @Get('metered')
  @Metered('site')
  metered(): string {
    return 'yes';
  }

  @Get('free')
  free(): string {
    return 'free';
  }
}

@Module({ imports: [MeteringModule], controllers: [TestController] })
class TestFeatureModule {}

describe('MeteringModule', () => {
  it('meters the routes @Metered names, through the guard it installs there, and no others', async () => {
    const config = validateConfig({ gateway: { metering: { site: { limit: 1, ttl_secs: 60 } } } });
    const moduleRef = await Test.createTestingModule({
      imports: [ConfigModule.forRoot(config), TestFeatureModule],
    }).compile();
    const app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), {
      logger: false,
    });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    try {
      const inject = (url: string) => app.getHttpAdapter().getInstance().inject({ url });
      const first = await inject('/metered');
      expect([first.statusCode, first.headers['ratelimit-limit']]).toEqual([200, '1']);
      expect((await inject('/metered')).statusCode).toBe(429);
      const free = await inject('/free');
      expect([free.statusCode, free.headers['ratelimit-limit']]).toEqual([200, undefined]);
    } finally {
      await app.close();
    }
  });
});
