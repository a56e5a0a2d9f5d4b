import { Test } from '@nestjs/testing';
import { ConfigService } from '@nestjs/config';
import { validateConfig } from './config-loader';
import { AppConfigService, ConfigModule } from './config.module';
import { SiteConfig } from './site.config';
import { StorageConfig } from './storage.config';

describe('ConfigModule', () => {
  it('serves the validated config through @nestjs/config, each section by its class from it', async () => {
    const config = validateConfig({ gateway: { site: { max_age_secs: 7 } } });
    const moduleRef = await Test.createTestingModule({
      imports: [ConfigModule.forRoot(config)],
    }).compile();
    const service = moduleRef.get<AppConfigService>(ConfigService);
    expect(service.get('gateway.site', { infer: true })).toBe(config.gateway.site);
    expect(service.get('gateway.site.max_age_secs', { infer: true })).toBe(7);
    expect(moduleRef.get(SiteConfig)).toBe(config.gateway.site);
    expect(moduleRef.get(StorageConfig)).toBe(config.storage);
    // Only the loaded config: no variable of the environment leaks through.
    expect((service as unknown as ConfigService).get('PATH')).toBeUndefined();
    await moduleRef.close();
  });
});
