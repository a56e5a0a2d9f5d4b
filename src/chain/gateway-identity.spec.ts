import { Keypair } from '@solana/web3.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainConfig } from '../config/chain.config';
import { StorageConfig } from '../config/storage.config';
import { GatewayIdentity } from './gateway-identity';
import { writeKeypair } from './keypair-file';

describe('GatewayIdentity roles', () => {
  let dir: string;
  const storage = () => Object.assign(new StorageConfig(), { data_dir: dir });
  const chain = (fields: Partial<ChainConfig> = {}) => Object.assign(new ChainConfig(), fields);

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gw-identity-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('the embedded local network (no rpc_url) creates the key and writes', () => {
    const identity = GatewayIdentity.load(chain(), storage());
    expect(identity.role).toBe('writer');
    expect(existsSync(join(dir, 'gateway-key.json'))).toBe(true);
    expect(GatewayIdentity.load(chain(), storage()).publicKey.equals(identity.publicKey)).toBe(
      true,
    );
  });

  it('an external RPC with no key is a reader and never writes a key file', () => {
    const identity = GatewayIdentity.load(chain({ rpc_url: 'http://127.0.0.1:1' }), storage());
    expect(identity.role).toBe('reader');
    expect(identity.isWriter).toBe(false);
    expect(existsSync(join(dir, 'gateway-key.json'))).toBe(false);
  });

  it('an external RPC with a key file (explicit or in data_dir) is a writer with that key', () => {
    const key = Keypair.generate();
    const explicit = join(dir, 'authority.json');
    writeKeypair(explicit, key);
    const a = GatewayIdentity.load(
      chain({ rpc_url: 'http://127.0.0.1:1', gateway_keypair: explicit }),
      storage(),
    );
    expect(a.role).toBe('writer');
    expect(a.publicKey.equals(key.publicKey)).toBe(true);
    writeKeypair(join(dir, 'gateway-key.json'), key);
    const b = GatewayIdentity.load(chain({ rpc_url: 'http://127.0.0.1:1' }), storage());
    expect(b.role).toBe('writer');
    expect(b.publicKey.equals(key.publicKey)).toBe(true);
  });

  it('an explicit key path that does not exist is an error, not a silent reader', () => {
    expect(() =>
      GatewayIdentity.load(
        chain({ rpc_url: 'http://127.0.0.1:1', gateway_keypair: join(dir, 'typo.json') }),
        storage(),
      ),
    ).toThrow(/no keypair/);
  });
});
