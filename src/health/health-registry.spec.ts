import { HealthRegistry } from './health-registry';

describe('HealthRegistry', () => {
  it('is ready only when every probe answers, and names the one that failed', async () => {
    const sut = new HealthRegistry();
    sut.register('chain', async () => {});
    sut.register('track-store', () => Promise.reject(new Error('disk gone')));
    expect(await sut.check()).toEqual({
      ok: false,
      degraded: false,
      checks: { chain: 'ok', 'track-store': 'disk gone' },
      details: {},
    });
  });

  it('bounds a probe that never answers by the timeout', async () => {
    const sut = new HealthRegistry();
    sut.register('chain', () => new Promise(() => {}));
    const report = await sut.check(20);
    expect(report.ok).toBe(false);
    expect(report.checks.chain).toBe('no answer in 20 ms');
  });

  it('reports details beside the checks without gating readiness on them', async () => {
    const sut = new HealthRegistry();
    let failures = 0;
    sut.register('chain', async () => {});
    sut.registerDetail('metering', () => ({ backend: 'redis', healthy: false, failures }));
    failures = 3; // read when /healthz asks, not when registered
    expect(await sut.check()).toEqual({
      ok: true,
      degraded: false,
      checks: { chain: 'ok' },
      details: { metering: { backend: 'redis', healthy: false, failures: 3 } },
    });
  });

  it('reports a detail that throws as its error, still ready', async () => {
    const sut = new HealthRegistry();
    sut.registerDetail('metering', () => {
      throw new Error('stats broke');
    });
    expect(await sut.check()).toEqual({
      ok: true,
      degraded: false,
      checks: {},
      details: { metering: { error: 'stats broke' } },
    });
  });

  it('is degraded, still ready, while a warning gives a reason; ok again when it gives none', async () => {
    const sut = new HealthRegistry();
    let reason: string | null = 'the key holds 0 SOL: fund it';
    sut.register('chain', async () => {});
    sut.registerWarning('key-balance', async () => reason);
    expect(await sut.check()).toMatchObject({
      ok: true,
      degraded: true,
      checks: { chain: 'ok', 'key-balance': 'the key holds 0 SOL: fund it' },
    });
    reason = null;
    expect(await sut.check()).toMatchObject({
      ok: true,
      degraded: false,
      checks: { chain: 'ok', 'key-balance': 'ok' },
    });
  });

  it('is unavailable, not degraded, when a probe fails; a warning that throws degrades nothing', async () => {
    const sut = new HealthRegistry();
    sut.register('chain', () => Promise.reject(new Error('down')));
    sut.registerWarning('key-balance', async () => 'short');
    expect(await sut.check()).toMatchObject({ ok: false, degraded: false });
    const quiet = new HealthRegistry();
    quiet.registerWarning('key-balance', () => Promise.reject(new Error('unreadable')));
    expect(await quiet.check()).toMatchObject({ ok: true, degraded: false });
  });

  it('refuses detail names that would hide the status or the checks', () => {
    const sut = new HealthRegistry();
    expect(() => sut.registerDetail('status', () => 1)).toThrow(/reserved/);
    expect(() => sut.registerDetail('checks', () => 1)).toThrow(/reserved/);
    expect(() => sut.registerDetail('reasons', () => 1)).toThrow(/reserved/);
  });
});
