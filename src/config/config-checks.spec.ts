import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { ConfigError, loadConfig, validateConfig } from './config-loader';
import { gatewayRole } from './gateway-role';
import { siteResolvers } from './site-checks';
import { SiteConfig } from './site.config';

const TAPE = Keypair.generate().publicKey.toBase58();
const site = (s: Record<string, unknown>) => () => validateConfig({ gateway: { site: s } });
const storage = (s: Record<string, unknown>) => () => validateConfig({ storage: s });

describe('the checks of gateway.site.* when the configuration is validated', () => {
  it('names a wrong domains entry, suffix or origin in one line', () => {
    expect(site({ domains: { 'docs.example.com': 'nope' } })).toThrow(
      /^config error: gateway\.site\.domains\["docs\.example\.com"\]: "nope" is not a tape address$/,
    );
    expect(site({ domains: { 'a_b.example': TAPE } })).toThrow(
      /^config error: gateway\.site\.domains\["a_b\.example"\]: not a host name/,
    );
    expect(site({ subdomain_suffix: 'http://localhost' })).toThrow(
      /^config error: gateway\.site\.subdomain_suffix: "http:\/\/localhost" is not host or host:port/,
    );
    expect(site({ cors_origins: ['https://ok.example', 'https://a.example/path'] })).toThrow(
      /^config error: gateway\.site\.cors_origins\[1\] "https:\/\/a\.example\/path": not an origin/,
    );
    expect(site({ connect_origins: ['ftp://x.example'] })).toThrow(
      /^config error: gateway\.site\.connect_origins\[0\]/,
    );
    expect(
      site({ domains: { 'docs.example.com': ` ${TAPE} ` }, cors_origins: ['*'] }),
    ).not.toThrow();
  });

  it('refuses path_isolation redirect without a subdomain suffix', () => {
    expect(site({ path_isolation: 'redirect', subdomain_suffix: '' })).toThrow(
      'config error: gateway.site.path_isolation is redirect but gateway.site.subdomain_suffix is empty',
    );
    expect(site({ path_isolation: 'redirect', subdomain_suffix: 'sites.example' })).not.toThrow();
  });

  it('names a resolver that is no address, or a remote one while TXT bindings trust it', () => {
    expect(site({ dns_resolvers: ['127.0.0.1', 'resolver.example'] })).toThrow(
      'config error: gateway.site.dns_resolvers[1]: "resolver.example" is not ip, ip:port or [ipv6]:port',
    );
    expect(site({ txt_domains: true, dns_resolvers: ['127.0.0.1:5353', '192.0.2.7:53'] })).toThrow(
      /^config error: gateway\.site\.dns_resolvers\[1\]: 192\.0\.2\.7:53 is not on loopback;/,
    );
    expect(
      site({ txt_domains: true, dns_resolvers: ['192.0.2.7:53'], dns_resolvers_trusted: true }),
    ).not.toThrow();
  });

  it('checks the resolvers of resolv.conf when none are named', () => {
    const config = Object.assign(new SiteConfig(), { txt_domains: true });
    expect(() => siteResolvers(config, 'nameserver 10.255.255.53\n')).toThrow(
      /^config error: gateway\.site\.dns_resolvers: \/etc\/resolv\.conf names 10\.255\.255\.53:53/,
    );
    expect(siteResolvers(config, 'nameserver 127.0.0.53\n')).toEqual([
      { host: '127.0.0.53', port: 53, family: 4 },
    ]);
  });
});

describe('the checks of storage.tracks.* when the configuration is validated', () => {
  it('needs an endpoint for the s3 store, and refuses peers beside a store', () => {
    expect(storage({ tracks: { store: 's3' } })).toThrow(ConfigError);
    expect(storage({ tracks: { store: 's3' } })).toThrow(
      /^config error: storage\.tracks\.s3\.endpoint is required when storage\.tracks\.store is s3$/,
    );
    expect(
      storage({ tracks: { store: 's3', s3: { endpoint: 'http://127.0.0.1:9' } } }),
    ).not.toThrow();
    expect(storage({ tracks: { store: 's3', peers: ['http://127.0.0.1:9'] } })).toThrow(
      /^config error: storage\.tracks\.peers: a gateway reads from peers or from a store, not both/,
    );
  });

  it('refuses peers on a writer when loaded: embedded, a named key, or a key in the data dir', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'config-role-'));
    try {
      const peers = {
        TAPE_DATA_DIR: dataDir,
        TAPE__STORAGE__TRACKS__PEERS: '["http://a.example"]',
      };
      const writer = /^config error: storage\.tracks\.peers: only a reader reads from peers/;
      expect(() => loadConfig(peers)).toThrow(writer);
      const reader = { ...peers, TAPE_RPC_URL: 'http://127.0.0.1:9' };
      expect(loadConfig(reader).storage.tracks.peers).toEqual(['http://a.example']);
      const named = { ...reader, TAPE__CHAIN__GATEWAY_KEYPAIR: join(dataDir, 'k.json') };
      expect(() => loadConfig(named)).toThrow(writer);
      writeFileSync(join(dataDir, 'gateway-key.json'), '[]');
      expect(() => loadConfig(reader)).toThrow(writer);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('gatewayRole', () => {
  it('is writer with the embedded network or a key, reader against an RPC with none', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'config-role-'));
    try {
      const config = loadConfig({ TAPE_DATA_DIR: dataDir });
      expect(gatewayRole(config.chain, config.storage)).toBe('writer');
      config.chain.rpc_url = 'http://127.0.0.1:9';
      expect(gatewayRole(config.chain, config.storage)).toBe('reader');
      writeFileSync(join(dataDir, 'gateway-key.json'), '[]');
      expect(gatewayRole(config.chain, config.storage)).toBe('writer');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
