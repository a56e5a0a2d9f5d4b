import { loadConfig, validateConfig } from './config-loader';

describe('gateway listener config (issue 17)', () => {
  const saved = process.env.NODE_ENV;
  afterEach(() => {
    if (saved === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = saved;
  });

  it('turns the access log on by default in production only', () => {
    process.env.NODE_ENV = 'production';
    expect(validateConfig({}).gateway.access_log).toBe(true);
    process.env.NODE_ENV = 'test';
    expect(validateConfig({}).gateway.access_log).toBe(false);
    expect(validateConfig({ gateway: { access_log: true } }).gateway.access_log).toBe(true);
  });

  it('logs in the auto format unless TAPE_LOG_FORMAT or gateway.log_format says pretty or json', () => {
    expect(loadConfig({}).gateway.log_format).toBe('auto');
    expect(loadConfig({ TAPE_LOG_FORMAT: 'pretty' }).gateway.log_format).toBe('pretty');
    expect(validateConfig({ gateway: { log_format: 'json' } }).gateway.log_format).toBe('json');
    expect(() => loadConfig({ TAPE_LOG_FORMAT: 'xml' })).toThrow(
      'config error: gateway.log_format',
    );
  });

  it('samples 0..1 of requests, every one by default', () => {
    expect(validateConfig({}).gateway.access_log_sample).toBe(1);
    expect(validateConfig({ gateway: { access_log_sample: 0.1 } }).gateway.access_log_sample).toBe(
      0.1,
    );
    expect(() => validateConfig({ gateway: { access_log_sample: 1.5 } })).toThrow(
      'gateway.access_log_sample',
    );
  });

  it('puts the admin listener on loopback port 9464 unless configured', () => {
    expect(validateConfig({}).gateway.admin).toMatchObject({ host: '127.0.0.1', port: 9464 });
    expect(validateConfig({ gateway: { admin: { port: 0 } } }).gateway.admin.port).toBe(0);
  });

  it('bounds the TLS ask endpoint by default and refuses nonsense limits naming the key', () => {
    expect(validateConfig({}).gateway.admin.tls_ask).toEqual({
      cache_entries: 10_000,
      refused_ttl_secs: 60,
      approved_ttl_secs: 300,
      lookups_per_minute: 30,
      lookup_burst: 20,
    });
    expect(() =>
      validateConfig({ gateway: { admin: { tls_ask: { lookups_per_minute: 0 } } } }),
    ).toThrow('gateway.admin.tls_ask.lookups_per_minute');
  });
});
