import { Test, TestingModule } from '@nestjs/testing';
import { validateConfig } from '../../../src/config/config-loader';
import { ConfigModule } from '../../../src/config/config.module';
import { S3Backend } from '../../../src/s3/s3-backend';
import { S3CredentialStore } from '../../../src/s3/s3-credential-store';
import { S3RequestMeter } from '../../../src/s3/s3-request-meter';
import { S3Server } from '../../../src/s3/s3-server';
import { S3Module } from '../../../src/s3/s3.module';
import {
  MemoryS3Backend,
  MemoryS3CredentialStore,
  SwitchableS3RequestMeter,
} from '../fakes/s3-memory-backend';

export interface S3TestApp {
  url: string;
  port: number;
  backend: MemoryS3Backend;
  credentials: MemoryS3CredentialStore;
  meter: SwitchableS3RequestMeter;
  close: () => Promise<void>;
}

/**
 * A Nest application context with the real S3Module (its own Fastify listener on a free
 * loopback port) over the in-memory backend double.
 */
export async function startS3TestApp(s3: Record<string, unknown> = {}): Promise<S3TestApp> {
  const backend = new MemoryS3Backend();
  const credentials = new MemoryS3CredentialStore();
  const meter = new SwitchableS3RequestMeter();
  const config = validateConfig({ gateway: { host: '127.0.0.1', s3: { port: 0, ...s3 } } });
  const moduleRef: TestingModule = await Test.createTestingModule({
    imports: [
      ConfigModule.forRoot(config),
      S3Module.forRoot({
        providers: [
          { provide: S3Backend, useValue: backend },
          { provide: S3CredentialStore, useValue: credentials },
          { provide: S3RequestMeter, useValue: meter },
        ],
      }),
    ],
  }).compile();
  moduleRef.enableShutdownHooks();
  await moduleRef.init();
  const server = moduleRef.get(S3Server);
  return {
    url: server.url,
    port: server.address.port,
    backend,
    credentials,
    meter,
    close: () => moduleRef.close(),
  };
}
