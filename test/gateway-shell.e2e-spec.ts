import { startGateway } from './support/processes/gateway';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './support/processes/gateway';

describe('gateway process', () => {
  it('answers /healthz, gives the stable error body, and exits cleanly on SIGTERM', async () => {
    const gw = await startGateway();
    const health = await fetch(`${gw.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect(((await health.json()) as { status: string }).status).toBe('ok');

    const missing = await fetch(`${gw.url}/no/such/route`);
    expect(missing.status).toBe(404);
    const body = (await missing.json()) as { error: { code: string } };
    expect(body.error.code).toBe('not_found');
    expect(gw.logs()).not.toContain('started without');
    expect(await gw.stop('SIGTERM')).toBe(0);
  });

  it('warns when started without the Node flags `npm start` passes', async () => {
    const gw = await startGateway({ nodeFlags: [] });
    try {
      expect(gw.logs()).toContain('started without --no-memory-reducer');
      expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    } finally {
      await gw.stop('SIGTERM');
    }
  });

  it('refuses to start with one line naming a wrong config key', () => {
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'dist', 'main.js')], {
      env: { ...process.env, TAPE__GATEWAY__SITE__MAX_AGE_SECS: '-5' },
      encoding: 'utf8',
      timeout: 20000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(
      'config error: gateway.site.max_age_secs: must not be less than 0',
    );
  });

  it('refuses a check across keys at load, before the local network or its data directory', () => {
    const parent = mkdtempSync(join(tmpdir(), 'tape-gw-shell-'));
    const dataDir = join(parent, 'data');
    try {
      const run = spawnSync(process.execPath, [join(REPO_ROOT, 'dist', 'main.js')], {
        env: { ...process.env, TAPE_DATA_DIR: dataDir, TAPE__STORAGE__TRACKS__STORE: 's3' },
        encoding: 'utf8',
        timeout: 20000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr.trim()).toBe(
        'config error: storage.tracks.s3.endpoint is required when storage.tracks.store is s3',
      );
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
