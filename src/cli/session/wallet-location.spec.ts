import { Keypair } from '@solana/web3.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeKeypair } from '../../chain/keypair-file';
import { RecordingPrinter } from '../output/recording-printer';
import { CliConfigStore } from './cli-config-store';
import { CliEnvironment } from './cli-environment';
import { CliSigners } from './cli-signers';
import { CliTarget } from './cli-target';
import { configuredKeypairPath, locateWallet } from './wallet-location';

/** A fake HOME per test: tape's config dir and the Solana CLI's under it. */
function newHome() {
  const home = mkdtempSync(join(tmpdir(), 'tape-home-'));
  const env = new CliEnvironment({ HOME: home });
  const tapeId = join(home, '.config', 'tape', 'id.json');
  const solanaDir = join(home, '.config', 'solana');
  const solanaConfig = (yaml: string) => {
    mkdirSync(join(solanaDir, 'cli'), { recursive: true });
    writeFileSync(join(solanaDir, 'cli', 'config.yml'), yaml);
  };
  const key = (path: string) => {
    const k = Keypair.generate();
    writeKeypair(path, k);
    return k;
  };
  return { home, env, tapeId, solanaDir, solanaConfig, key };
}

describe('locateWallet', () => {
  const homes: string[] = [];
  const home = () => {
    const h = newHome();
    homes.push(h.home);
    return h;
  };
  afterAll(() => homes.forEach((h) => rmSync(h, { recursive: true, force: true })));

  it('takes -k over everything, without a note', () => {
    const h = home();
    h.key(h.tapeId);
    expect(locateWallet('/some/where.json', h.tapeId, h.env)).toEqual({
      path: '/some/where.json',
      source: 'option',
    });
  });

  it("takes tape's own id.json when it exists, even with a Solana CLI keypair beside it", () => {
    const h = home();
    h.key(h.tapeId);
    h.key(join(h.solanaDir, 'id.json'));
    expect(locateWallet(undefined, h.tapeId, h.env)).toEqual({ path: h.tapeId, source: 'tape' });
  });

  it("falls back to keypair_path of the Solana CLI's config.yml, with a note naming it", () => {
    const h = home();
    const configured = join(h.home, 'keys', 'dev.json');
    h.key(configured);
    h.key(join(h.solanaDir, 'id.json'));
    h.solanaConfig(
      `---\njson_rpc_url: "https://api.devnet.solana.com"\nkeypair_path: ${configured}\ncommitment: confirmed\n`,
    );
    const found = locateWallet(undefined, h.tapeId, h.env);
    expect(found.path).toBe(configured);
    expect(found.source).toBe('solana-cli-config');
    expect(found.note).toBe(
      `using the Solana CLI's keypair ${configured} (keypair_path in ${join(h.solanaDir, 'cli', 'config.yml')}; ${h.tapeId} does not exist)`,
    );
  });

  it('falls back to ~/.config/solana/id.json when config.yml names no keypair that exists', () => {
    const h = home();
    const solanaId = join(h.solanaDir, 'id.json');
    h.key(solanaId);
    h.solanaConfig(`keypair_path: ${join(h.home, 'gone.json')}\n`);
    const found = locateWallet(undefined, h.tapeId, h.env);
    expect(found).toEqual({
      path: solanaId,
      source: 'solana-default',
      note: `using the Solana CLI's keypair ${solanaId} (${h.tapeId} does not exist)`,
    });
    // A config.yml that is not YAML at all does not stop the next fallback either.
    h.solanaConfig('keypair_path: [unclosed\n');
    expect(locateWallet(undefined, h.tapeId, h.env).path).toBe(solanaId);
  });

  it("answers tape's own path when no keypair exists anywhere (for keygen and the error)", () => {
    const h = home();
    expect(locateWallet(undefined, h.tapeId, h.env)).toEqual({ path: h.tapeId, source: 'tape' });
  });

  it('expands ~ in keypair_path against HOME', () => {
    const h = home();
    h.solanaConfig('keypair_path: ~/wallets/main.json\n');
    expect(configuredKeypairPath(join(h.solanaDir, 'cli', 'config.yml'), h.home)).toBe(
      join(h.home, 'wallets', 'main.json'),
    );
  });
});

function newSession(env: CliEnvironment, printer = new RecordingPrinter()): CliSigners {
  const store = new CliConfigStore(env);
  return new CliSigners(new CliTarget(store, env).start({}), store, env, printer);
}

describe('CliSigners.wallet with a fake HOME', () => {
  it("signs with the Solana CLI's keypair and says so once; keygen still targets tape's id.json", () => {
    const h = newHome();
    try {
      const solanaKey = h.key(join(h.solanaDir, 'id.json'));
      const printer = new RecordingPrinter();
      const notes = printer.notes;
      const session = newSession(h.env, printer);
      expect(session.wallet().publicKey.toBase58()).toBe(solanaKey.publicKey.toBase58());
      session.wallet();
      expect(notes).toEqual([
        `using the Solana CLI's keypair ${join(h.solanaDir, 'id.json')} (${h.tapeId} does not exist)`,
      ]);
      expect(session.keypairPath).toBe(h.tapeId);
    } finally {
      rmSync(h.home, { recursive: true, force: true });
    }
  });

  it('keeps the "no keypair … (create one: tape keygen)" error when nothing exists', () => {
    const h = newHome();
    try {
      const session = newSession(h.env);
      expect(() => session.wallet()).toThrow(`no keypair at ${h.tapeId} (create one: tape keygen)`);
    } finally {
      rmSync(h.home, { recursive: true, force: true });
    }
  });
});
