import 'reflect-metadata';
import { Controller, DynamicModule, Get, Module, Param, Put, Req, Res } from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AllExceptionsFilter } from '../../../src/http/all-exceptions.filter';
import { ApiError } from '../../../src/http/api-error';
import { AppConfig } from '../../../src/config/app-config';
import { ConfigModule } from '../../../src/config/config.module';
import { validateConfig } from '../../../src/config/config-loader';
import { HealthModule } from '../../../src/health/health.module';
import { Metered } from '../../../src/metering/metered.decorator';
import { MeteringGate } from '../../../src/metering/metering-gate';
import { MeteringModule } from '../../../src/metering/metering.module';
import { MeteringService } from '../../../src/metering/metering.service';
import { startS3LikeListener, S3LikeListener } from './metering-s3-listener';

/** Routes for each budget, as the site, object, upload routes will use them, plus unmetered ones. */
@Controller()
class MeteringTestController {
  constructor(
    private readonly metering: MeteringService,
    private readonly gate: MeteringGate,
  ) {}

  @Get('open')
  open(): { ok: true } {
    return { ok: true };
  }

  @Metered('site')
  @Get('site/*')
  site(): string {
    return 'page';
  }

  /** Sends `bytes` zero bytes, charged against the object byte budget first. */
  @Metered('object')
  @Get('object/:bytes')
  async object(
    @Param('bytes') bytes: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    if (!/^\d{1,8}$/.test(bytes)) throw new ApiError(400, 'bad_request', 'bytes must be a number');
    await this.gate.enforceBytes(request, reply, Number(bytes));
    void reply.header('content-type', 'application/octet-stream');
    return Buffer.alloc(Number(bytes));
  }

  @Metered('upload')
  @Put('upload/:name')
  upload(): { stored: true } {
    return { stored: true };
  }

  @Get('metering/whoami')
  whoami(@Req() request: FastifyRequest): { client: string } {
    return { client: this.metering.clientKeyOf(request) };
  }

  @Get('metering/stats')
  stats(): ReturnType<MeteringService['stats']> {
    return this.metering.stats();
  }
}

/** Metered at the controller level, with one route that names another budget. */
@Metered('upload')
@Controller('bulk')
class ClassMeteredController {
  @Put(':name')
  put(): { stored: true } {
    return { stored: true };
  }

  @Metered('site')
  @Get(':name')
  get(): string {
    return 'listing';
  }
}

@Module({})
class MeteringTestModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: MeteringTestModule,
      imports: [ConfigModule.forRoot(config), HealthModule, MeteringModule],
      controllers: [MeteringTestController, ClassMeteredController],
      providers: [{ provide: APP_FILTER, useClass: AllExceptionsFilter }],
    };
  }
}

export interface MeteringTestApp {
  url: string;
  /** The S3-like listener (a separate Fastify instance using the programmatic API). */
  s3Url: string;
  port: number;
  app: NestFastifyApplication;
  close(): Promise<void>;
}

/**
 * A small gateway: MeteringModule over real config, the test controller and an S3-like listener,
 * listening on free ports of `host` ('::' listens on IPv6 and IPv4 both).
 */
export async function startMeteringTestApp(
  metering: Record<string, unknown>,
  host = '127.0.0.1',
  logLevels: ('log' | 'warn' | 'error')[] = ['error'],
): Promise<MeteringTestApp> {
  const config = validateConfig({ gateway: { metering } });
  const app = await NestFactory.create<NestFastifyApplication>(
    MeteringTestModule.forRoot(config),
    new FastifyAdapter(),
    { logger: logLevels },
  );
  await app.listen(0, host);
  const port = (app.getHttpServer().address() as { port: number }).port;
  let s3: S3LikeListener | undefined;
  try {
    s3 = await startS3LikeListener(app.get(MeteringService), host);
  } catch (err) {
    await app.close();
    throw err;
  }
  const urlHost = host.includes(':') ? `[${host === '::' ? '::1' : host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    s3Url: `http://${urlHost}:${s3.port}`,
    port,
    app,
    close: async () => {
      await s3?.close();
      await app.close();
    },
  };
}
