import { Test } from '@nestjs/testing';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig } from '../config/app-config';
import { validateConfig } from '../config/config-loader';
import { ConfigModule } from '../config/config.module';
import { LazyAppConfig } from '../config/lazy-config.module';
import { CREDENTIALS_FILE } from './sqlite-credential-registry';
import { CredentialRegistry } from './credential-registry';
import { CredentialsModule } from './credentials.module';
import { LazyCredentialRegistry } from './lazy-credential-registry';

const TAPE = 'GegjFWW8SVeSTqsyo9ZkEzCQY2mY55T2AUazk4kjfYyT';

function newConfig(): { config: AppConfig; dataDir: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'credentials-module-'));
  return { config: validateConfig({ storage: { data_dir: dataDir } }), dataDir };
}

describe('CredentialsModule', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it("forRoot: opens the data directory's credentials at start-up and closes them with the app", async () => {
    const { config, dataDir } = newConfig();
    dirs.push(dataDir);
    const moduleRef = await Test.createTestingModule({
      imports: [ConfigModule.forRoot(config), CredentialsModule.forRoot()],
    }).compile();
    expect(existsSync(join(dataDir, CREDENTIALS_FILE))).toBe(true);
    const registry = moduleRef.get(CredentialRegistry);
    const issued = await registry.issue(TAPE);
    expect((await registry.find(issued.accessKeyId))?.tapeAddress).toBe(TAPE);
    const closed = jest.spyOn(registry, 'close');
    await moduleRef.close();
    expect(closed).toHaveBeenCalled();
  });

  it('forLazyConfig: reads the configuration and opens the credentials only when used', async () => {
    const { config, dataDir } = newConfig();
    dirs.push(dataDir);
    const get = jest.fn(() => config);
    const moduleRef = await Test.createTestingModule({
      imports: [CredentialsModule.forLazyConfig()],
    })
      .overrideProvider(LazyAppConfig)
      .useValue({ get })
      .compile();
    const registry = moduleRef.get(CredentialRegistry);
    expect(registry).toBe(moduleRef.get(LazyCredentialRegistry));
    expect(get).not.toHaveBeenCalled();
    expect(existsSync(join(dataDir, CREDENTIALS_FILE))).toBe(false);
    const issued = await registry.issue(TAPE);
    expect((await registry.list()).map((c) => c.accessKeyId)).toEqual([issued.accessKeyId]);
    expect(get).toHaveBeenCalledTimes(1);
    const opened = moduleRef.get(LazyCredentialRegistry).open();
    const closed = jest.spyOn(opened, 'close');
    await moduleRef.close();
    expect(closed).toHaveBeenCalled();
  });

  it('forLazyConfig: closing what was never opened opens nothing', async () => {
    const get = jest.fn();
    const moduleRef = await Test.createTestingModule({
      imports: [CredentialsModule.forLazyConfig()],
    })
      .overrideProvider(LazyAppConfig)
      .useValue({ get })
      .compile();
    await moduleRef.close();
    expect(get).not.toHaveBeenCalled();
  });
});
