import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliConfigStore } from './cli-config-store';
import { CliEnvironment } from './cli-environment';
import { CliSettings, SettingFlags } from './cli-settings';

/** A fake HOME with tape's config dir and, when asked, a Solana CLI config.yml. */
function newSettings() {
  const home = mkdtempSync(join(tmpdir(), 'tape-settings-'));
  const solanaFile = join(home, '.config', 'solana', 'cli', 'config.yml');
  let vars: Record<string, string> = {};
  const store = () => new CliConfigStore(new CliEnvironment({ HOME: home, ...vars }));
  return {
    home,
    solanaFile,
    solana(yaml: string) {
      mkdirSync(join(home, '.config', 'solana', 'cli'), { recursive: true });
      writeFileSync(solanaFile, yaml);
    },
    env(v: Record<string, string>) {
      vars = v;
    },
    set(key: Parameters<CliConfigStore['set']>[0], value: string) {
      store().set(key, value);
    },
    sut(flags: SettingFlags = {}) {
      const env = new CliEnvironment({ HOME: home, ...vars });
      return new CliSettings(new CliConfigStore(env), env, flags);
    },
  };
}

describe('CliSettings', () => {
  const homes: string[] = [];
  const make = () => {
    const h = newSettings();
    homes.push(h.home);
    return h;
  };
  afterAll(() => homes.forEach((h) => rmSync(h, { recursive: true, force: true })));

  it('url: flag > TAPE_RPC_URL > config url > json_rpc_url of the Solana CLI > localhost', () => {
    const h = make();
    expect(h.sut().rpcUrl()).toEqual({
      value: 'http://127.0.0.1:8899',
      source: 'default',
      origin: 'built-in',
    });
    h.solana('json_rpc_url: "https://api.testnet.solana.com"\nkeypair_path: ~/k.json\n');
    expect(h.sut().rpcUrl()).toEqual({
      value: 'https://api.testnet.solana.com',
      source: 'solana-cli',
      origin: `json_rpc_url in ${h.solanaFile}`,
    });
    h.set('url', 'https://api.devnet.solana.com');
    expect(h.sut().rpcUrl()).toMatchObject({
      value: 'https://api.devnet.solana.com',
      source: 'config',
      origin: join(h.home, '.config', 'tape', 'config.json'),
    });
    h.env({ TAPE_RPC_URL: 'm' });
    expect(h.sut().rpcUrl()).toEqual({
      value: 'https://api.mainnet-beta.solana.com',
      source: 'env',
      origin: 'TAPE_RPC_URL',
    });
    expect(h.sut({ url: 'localhost' }).rpcUrl()).toEqual({
      value: 'http://127.0.0.1:8899',
      source: 'flag',
      origin: '-u',
    });
  });

  it('a broken or empty Solana config only moves on to the default', () => {
    const h = make();
    h.solana('json_rpc_url: [not: closed\n');
    expect(h.sut().rpcUrl().source).toBe('default');
    h.solana('json_rpc_url: ""\n');
    expect(h.sut().rpcUrl().source).toBe('default');
  });

  it('gateway and site_domain: environment > config > default; no Solana fallback', () => {
    const h = make();
    h.solana('json_rpc_url: "https://api.testnet.solana.com"\n');
    expect(h.sut().gatewayUrl()).toMatchObject({
      value: 'http://127.0.0.1:8080',
      source: 'default',
    });
    h.set('gateway', 'https://gw.example.net');
    h.set('site_domain', 'sites.example.net');
    expect(h.sut().gatewayUrl()).toMatchObject({
      value: 'https://gw.example.net',
      source: 'config',
    });
    expect(h.sut().siteDomain()).toMatchObject({ value: 'sites.example.net', source: 'config' });
    h.env({ TAPE_GATEWAY: 'http://127.0.0.1:9', TAPE_SITE_DOMAIN: 'localhost:9' });
    expect(h.sut().gatewayUrl()).toEqual({
      value: 'http://127.0.0.1:9',
      source: 'env',
      origin: 'TAPE_GATEWAY',
    });
    expect(h.sut().siteDomain()).toMatchObject({ value: 'localhost:9', source: 'env' });
  });

  it('keypair: -k > config keypair > id.json > keypair_path of the Solana CLI', () => {
    const h = make();
    const tapeId = join(h.home, '.config', 'tape', 'id.json');
    expect(h.sut().keypair()).toMatchObject({ value: tapeId, source: 'default', exists: false });
    const solanaKey = join(h.home, 'k.json');
    writeFileSync(solanaKey, '[]');
    h.solana('keypair_path: ~/k.json\n');
    expect(h.sut().keypair()).toMatchObject({
      value: solanaKey,
      source: 'solana-cli',
      origin: `keypair_path in ${h.solanaFile}`,
      exists: true,
    });
    h.set('keypair', '/keys/wallet.json');
    expect(h.sut().keypair()).toMatchObject({ value: '/keys/wallet.json', source: 'config' });
    expect(h.sut({ keypair: '/x.json' }).keypair()).toMatchObject({
      value: '/x.json',
      source: 'flag',
      origin: '-k',
    });
  });

  it('program_id and active_tape: flag first; an unset active tape is undefined', () => {
    const h = make();
    expect(h.sut().programId()).toMatchObject({ source: 'default' });
    expect(h.sut().activeTape()).toBeUndefined();
    const tape = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
    h.set('active_tape', tape);
    expect(h.sut().resolve('active_tape')).toMatchObject({ value: tape, source: 'config' });
    expect(h.sut({ tape: 'x' }).resolve('active_tape')).toMatchObject({
      value: 'x',
      source: 'flag',
    });
    h.env({ TAPE_PROGRAM_ID: tape });
    expect(h.sut().resolve('program_id')).toMatchObject({ value: tape, source: 'env' });
  });
});
