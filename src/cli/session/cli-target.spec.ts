import { Keypair } from '@solana/web3.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeKeypair } from '../../chain/keypair-file';
import { labelFromAddress } from '../../chain/tape-label';
import { RecordingPrinter } from '../output/recording-printer';
import { CliConfigStore } from './cli-config-store';
import { CliEnvironment } from './cli-environment';
import { CliSigners } from './cli-signers';
import { CliTarget } from './cli-target';

describe('CliTarget and CliSigners', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tape-target-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const open = (options: object, env: Record<string, string> = {}) => {
    const environment = new CliEnvironment({ TAPE_CONFIG_DIR: dir, ...env });
    const store = new CliConfigStore(environment);
    return new CliTarget(store, environment).start(options);
  };
  const signers = (options: object, env: Record<string, string> = {}) => {
    const environment = new CliEnvironment({ TAPE_CONFIG_DIR: dir, ...env });
    const store = new CliConfigStore(environment);
    const target = new CliTarget(store, environment).start(options);
    return new CliSigners(target, store, environment, new RecordingPrinter());
  };

  it('takes the RPC URL from -u, else TAPE_RPC_URL, else the local default', () => {
    expect(open({}).rpcUrl).toBe('http://127.0.0.1:8899');
    expect(open({}, { TAPE_RPC_URL: 'http://10.0.0.1:9000/' }).rpcUrl).toBe('http://10.0.0.1:9000');
    expect(open({ url: 'https://rpc.example' }, { TAPE_RPC_URL: 'http://x:1' }).rpcUrl).toBe(
      'https://rpc.example',
    );
    expect(() => open({ url: 'ftp://x' })).toThrow(/^bad RPC URL 'ftp:\/\/x'/);
    expect(() => open({ url: 'not a url' })).toThrow(/^bad RPC URL/);
  });

  it("takes the Solana CLI's cluster monikers for -u and TAPE_RPC_URL", () => {
    expect(open({ url: 'd' }).rpcUrl).toBe('https://api.devnet.solana.com');
    expect(open({ url: 'mainnet-beta' }).rpcUrl).toBe('https://api.mainnet-beta.solana.com');
    expect(open({}, { TAPE_RPC_URL: 'l' }).rpcUrl).toBe('http://127.0.0.1:8899');
  });

  it('takes the program id from --program-id, else TAPE_PROGRAM_ID, else the config key', () => {
    const [flag, env, stored] = [1, 2, 3].map(() => Keypair.generate().publicKey.toBase58());
    expect(open({}).programId.toBase58()).toBe('Tape111111111111111111111111111111111111111');
    expect(open({}).explicitProgramId()).toBeUndefined();
    const s = open({});
    s.store.set('program_id', stored);
    try {
      expect(open({}).programId.toBase58()).toBe(stored);
      expect(open({}, { TAPE_PROGRAM_ID: env }).programId.toBase58()).toBe(env);
      expect(open({ programId: flag }, { TAPE_PROGRAM_ID: env }).programId.toBase58()).toBe(flag);
      // The services the command builds use it, with the priority fee of the flag.
      const config = open({ programId: flag, withComputeUnitPrice: '2500' }).chainConfig();
      expect(config.program_id).toBe(flag);
      expect(config.computeUnitPrice).toBe(2500);
      expect(open({}).chainConfig().computeUnitPrice).toBeUndefined();
    } finally {
      s.store.set('program_id', undefined);
    }
    expect(() => open({}, { TAPE_PROGRAM_ID: 'nope' }).programId).toThrow(
      "bad program id (TAPE_PROGRAM_ID) 'nope': expected a base58 public key",
    );
    expect(() => open({ withComputeUnitPrice: '1.5' })).toThrow(/^bad compute-unit price '1.5'/);
  });

  it('finds the config directory from TAPE_CONFIG_DIR, XDG_CONFIG_HOME or HOME', () => {
    expect(new CliEnvironment({ TAPE_CONFIG_DIR: '/a/b' }).configDir).toBe('/a/b');
    expect(new CliEnvironment({ XDG_CONFIG_HOME: '/xdg', HOME: '/home/u' }).configDir).toBe(
      '/xdg/tape',
    );
    expect(new CliEnvironment({ HOME: '/home/u' }).configDir).toBe('/home/u/.config/tape');
  });

  it('uses the site domain from TAPE_SITE_DOMAIN over the config key', () => {
    const s = open({}, { TAPE_SITE_DOMAIN: 'sites.example.com' });
    s.store.set('site_domain', 'other.example');
    expect(s.siteUrl('lbl')).toBe('https://lbl.sites.example.com/');
    expect(open({}).siteUrl('lbl')).toBe('https://lbl.other.example/');
    s.store.set('site_domain', undefined);
    expect(open({}).siteUrl('lbl')).toBe('http://lbl.localhost:8080/');
  });

  it('explains a missing wallet and a missing tape', () => {
    expect(() => signers({}).wallet()).toThrow(
      `no keypair at ${join(dir, 'id.json')} (create one: tape keygen)`,
    );
    writeFileSync(join(dir, 'bad.json'), '[1,2,3]');
    expect(() => signers({ keypair: join(dir, 'bad.json') }).wallet()).toThrow(
      /is not a keypair file/,
    );
    expect(() => open({}).tapeAddress()).toThrow(/^no active tape \(create one: tape create/);
    expect(() => open({ tape: 'not-an-address' }).tapeAddress()).toThrow(
      "bad tape address 'not-an-address'",
    );
  });

  it('uses --tape over the active tape', () => {
    const a = Keypair.generate().publicKey.toBase58();
    const b = Keypair.generate().publicKey.toBase58();
    const s = open({});
    s.store.set('active_tape', a);
    expect(open({}).tapeAddress().toBase58()).toBe(a);
    expect(open({ tape: b }).tapeAddress().toBase58()).toBe(b);
    expect(
      open({ tape: labelFromAddress(b) })
        .tapeAddress()
        .toBase58(),
    ).toBe(b);
  });

  it("signs with the saved tape keypair, else a wallet that is the tape's authority or delegate", () => {
    const wallet = Keypair.generate();
    const walletPath = join(dir, 'wallet.json');
    writeKeypair(walletPath, wallet);
    const authority = Keypair.generate();
    const tapeAddress = Keypair.generate().publicKey;
    const record = { authority: authority.publicKey, delegate: null } as never;
    const s = signers({ keypair: walletPath });
    expect(() => s.tapeSigner({ address: tapeAddress, record })).toThrow(
      new RegExp(
        `^unauthorized signer: ${wallet.publicKey.toBase58()} is not the tape's keypair or its delegate`,
      ),
    );
    open({}).store.saveTapeKeypair(tapeAddress.toBase58(), authority);
    expect(
      s.tapeSigner({ address: tapeAddress, record }).publicKey.equals(authority.publicKey),
    ).toBe(true);
    const other = Keypair.generate().publicKey;
    const delegated = {
      authority: Keypair.generate().publicKey,
      delegate: wallet.publicKey,
    } as never;
    expect(
      s.tapeSigner({ address: other, record: delegated }).publicKey.equals(wallet.publicKey),
    ).toBe(true);
    expect(() => s.tapeSigner({ address: other, record: delegated }, true)).toThrow(
      /is not the tape's keypair for/,
    );
  });
});
