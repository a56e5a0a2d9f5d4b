import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, validateChainConfig } from './config-loader';

function yamlFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'gateway.yaml');
  writeFileSync(file, text);
  return file;
}

describe('loadConfig', () => {
  it('gives the documented defaults with no file and no variables', () => {
    const config = loadConfig({});
    expect(config.gateway.port).toBe(8080);
    expect(config.gateway.host).toBe('127.0.0.1');
    expect(config.gateway.s3.port).toBe(8081);
    expect(config.localnet.port).toBe(8899);
    expect(config.storage.data_dir).toBe('./.tape-data');
    expect(config.chain.rpc_url).toBeUndefined();
    expect(config.gateway.site.max_age_secs).toBe(60);
  });

  it('reads the spec keys from the YAML file', () => {
    const file = yamlFile(
      'gateway:\n  site:\n    spa_fallback: true\n    cors_origins: ["https://a.example"]\n  metering:\n    trusted_proxies: ["10.0.0.0/8"]\n',
    );
    const config = loadConfig({ TAPE_GATEWAY_CONFIG: file });
    expect(config.gateway.site.spa_fallback).toBe(true);
    expect(config.gateway.site.cors_origins).toEqual(['https://a.example']);
    expect(config.gateway.metering.trusted_proxies).toEqual(['10.0.0.0/8']);
    expect(config.gateway.site.tenant_overrides).toBe(true);
  });

  it('lets environment variables override the file', () => {
    const file = yamlFile('gateway:\n  port: 9000\n  site:\n    spa_fallback: true\n');
    const config = loadConfig({
      TAPE_GATEWAY_CONFIG: file,
      PORT: '9100',
      TAPE__GATEWAY__SITE__SPA_FALLBACK: 'false',
      TAPE_RPC_URL: 'http://127.0.0.1:1234',
    });
    expect(config.gateway.port).toBe(9100);
    expect(config.gateway.site.spa_fallback).toBe(false);
    expect(config.chain.rpc_url).toBe('http://127.0.0.1:1234');
  });

  it('stops with one line naming the wrong key', () => {
    expect(() => loadConfig({ TAPE__GATEWAY__SITE__MAX_AGE_SECS: '99999999' })).toThrow(
      /^config error: gateway\.site\.max_age_secs: must not be greater than 31536000$/,
    );
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/gateway\.port/);
    expect(() => loadConfig({ TAPE__GATEWAY__SITE__SPA_FALLBACK: '"yes"' })).toThrow(
      /gateway\.site\.spa_fallback: must be a boolean value/,
    );
  });

  it('gives the first message of stacked checks, whatever decorator combined them', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(
      /^config error: gateway\.port: must not be greater than 65535$/,
    );
    expect(() => loadConfig({ TAPE_REDIS_URL: 'http://x' })).toThrow(
      /^config error: gateway\.metering\.redis_url: must be a redis:\/\/ or rediss:\/\/ URL$/,
    );
    expect(() => loadConfig({ TAPE__STORAGE__SHARED__REDIS_URL: '5' })).toThrow(
      /^config error: storage\.shared\.redis_url: must be a redis:\/\/ or rediss:\/\/ URL$/,
    );
    expect(loadConfig({ TAPE_REDIS_URL: 'rediss://r:6380' }).gateway.metering.redis_url).toBe(
      'rediss://r:6380',
    );
  });

  it('rejects unknown keys, a missing file and a file that is not a mapping', () => {
    expect(() => loadConfig({ TAPE__GATEWAY__SITE__NOPE: '1' })).toThrow(/gateway\.site\.nope/);
    expect(() => loadConfig({ TAPE_GATEWAY_CONFIG: '/nonexistent/x.yaml' })).toThrow(ConfigError);
    expect(() => loadConfig({ TAPE_GATEWAY_CONFIG: yamlFile('- a\n- b\n') })).toThrow(/mapping/);
    expect(() => loadConfig({ TAPE_GATEWAY_CONFIG: yamlFile('a: [\n') })).toThrow(/not valid YAML/);
  });

  it('reads chain.compute_unit_price (YAML or env) into chain.computeUnitPrice', () => {
    expect(loadConfig({}).chain.computeUnitPrice).toBeUndefined();
    const file = yamlFile('chain:\n  compute_unit_price: 1000\n');
    expect(loadConfig({ TAPE_GATEWAY_CONFIG: file }).chain.computeUnitPrice).toBe(1000);
    expect(
      loadConfig({ TAPE_GATEWAY_CONFIG: file, TAPE__CHAIN__COMPUTE_UNIT_PRICE: '25000' }).chain
        .computeUnitPrice,
    ).toBe(25000);
    expect(() => loadConfig({ TAPE__CHAIN__COMPUTE_UNIT_PRICE: '-1' })).toThrow(
      /^config error: chain\.compute_unit_price: must not be less than 0$/,
    );
    expect(() => loadConfig({ TAPE__CHAIN__COMPUTE_UNIT_PRICE: '1.5' })).toThrow(
      /chain\.compute_unit_price: must be an integer number/,
    );
  });

  it('reads the tape program id from TAPE_PROGRAM_ID or chain.program_id, checked as a public key', () => {
    const id = 'Tape111111111111111111111111111111111111111';
    expect(loadConfig({}).chain.program_id).toBeUndefined();
    expect(loadConfig({ TAPE_PROGRAM_ID: id }).chain.program_id).toBe(id);
    const file = yamlFile(`chain:\n  program_id: ${id}\n`);
    expect(loadConfig({ TAPE_GATEWAY_CONFIG: file }).chain.program_id).toBe(id);
    // An id of digits only stays a string (YAML would read it as a number).
    const digits = '11111111111111111111111111111111';
    expect(loadConfig({ TAPE_PROGRAM_ID: digits }).chain.program_id).toBe(digits);
    expect(() => loadConfig({ TAPE_PROGRAM_ID: 'not-a-key' })).toThrow(
      /^config error: chain\.program_id: must be a base58 public key$/,
    );
  });
});

describe('validateChainConfig', () => {
  it("checks chain settings from elsewhere (the CLI's options) as the gateway's chain.*", () => {
    const config = validateChainConfig({ rpc_url: 'http://127.0.0.1:8899', compute_unit_price: 7 });
    expect(config).toMatchObject({ rpc_url: 'http://127.0.0.1:8899', commitment: 'confirmed' });
    expect(config.computeUnitPrice).toBe(7);
    expect(() => validateChainConfig({ program_id: 'nope' })).toThrow(
      /^config error: chain\.program_id: must be a base58 public key$/,
    );
  });
});
