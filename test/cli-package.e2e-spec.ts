import { execFile } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Keypair } from '@solana/web3.js';
import { writeKeypair } from '../src/chain/keypair-file';
import { GatewayProcess, REPO_ROOT, startGateway } from './support/processes/gateway';

const run = promisify(execFile);

/** Packing builds dist/ and installing extracts ~400 packages: minutes on a shared 2-core box. */
const TEST_TIMEOUT_MS = 600_000;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A copy of what `npm pack` reads (sources, build config, bin, program ELF, docs), packed there
 * so that prepack's build writes the copy's dist/, never the dist/ other tests are running.
 * node_modules entries are linked one by one: the compiler's incremental cache
 * (node_modules/.cache) stays the copy's own.
 */
function stageCheckout(dir: string): void {
  for (const entry of [
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'tsconfig.verify-module.json',
    'tools/bundle-verify-module.mjs',
    'README.md',
    'src',
    'bin',
    'docs',
    'program/tape.so',
  ]) {
    cpSync(join(REPO_ROOT, entry), join(dir, entry), { recursive: true });
  }
  mkdirSync(join(dir, 'node_modules'));
  for (const entry of readdirSync(join(REPO_ROOT, 'node_modules'))) {
    if (entry === '.cache') continue;
    symlinkSync(join(REPO_ROOT, 'node_modules', entry), join(dir, 'node_modules', entry));
  }
}

/**
 * better-sqlite3's install script (prebuild-install, else node-gyp) fetches a prebuilt binary
 * for this Node from GitHub, and compiles SQLite from source when it cannot: that compile was
 * over a minute of the test on a 2-core box without GitHub. prebuild-install also looks in a
 * local directory first (npm_config_<package>_local_prebuilds): this writes there, under
 * prebuild-install's own file name, the binary the clone's install produced, so the packed CLI's
 * install runs the same script and unpacks the same kind of prebuilt binary a user downloads.
 * When the installed version differs from the clone's, the name does not match and the script
 * compiles, as before. Returns the npm environment for that, or none when there is no binary.
 */
async function localSqlitePrebuild(dir: string): Promise<Record<string, string>> {
  const pkgDir = join(REPO_ROOT, 'node_modules', 'better-sqlite3');
  const binary = join('build', 'Release', 'better_sqlite3.node');
  if (!existsSync(join(pkgDir, binary))) return {};
  const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
    version: string;
  };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  mkdirSync(dir, { recursive: true });
  await run('tar', ['-czf', join(dir, name), '-C', pkgDir, binary]);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

/**
 * The CLI as a user gets it (issue 17): `npm pack` of this repository, `npm install -g` of the
 * tarball into a temporary prefix, and the installed `tape` run from a directory that is not the
 * clone, with a HOME of its own, against a real gateway. Needs the npm registry (or an npm cache
 * holding the package's dependencies: `--prefer-offline`).
 */
describe('the packed tape CLI', () => {
  const work = mkdtempSync(join(tmpdir(), 'tape-pkg-'));
  const prefix = join(work, 'prefix');
  const cwd = join(work, 'elsewhere');
  let tape: string;
  let gw: GatewayProcess;
  const version = (
    JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

  const tapeIn = async (
    home: string,
    args: string[],
    env: Record<string, string> = {},
  ): Promise<Ran> => {
    const base: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) {
      if (v !== undefined && !k.startsWith('TAPE_') && k !== 'XDG_CONFIG_HOME') base[k] = v;
    }
    try {
      const { stdout, stderr } = await run(tape, args, {
        cwd,
        env: {
          ...base,
          HOME: home,
          PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
          TAPE_RPC_URL: gw.rpcUrl,
          TAPE_GATEWAY: gw.url,
          ...env,
        },
        timeout: 120_000,
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  };
  const newHome = (name: string) => {
    const home = join(work, name);
    mkdirSync(home, { recursive: true });
    return home;
  };

  beforeAll(async () => {
    mkdirSync(cwd, { recursive: true });
    const checkout = join(work, 'checkout');
    stageCheckout(checkout);
    const [packed, gateway, prebuildEnv] = await Promise.all([
      (async () => {
        const { stdout } = await run(
          'npm',
          ['pack', '--json', '--pack-destination', work, '--loglevel=error'],
          { cwd: checkout, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
        );
        // prepack's `npm run build` prints to stdout before the JSON report.
        const report = JSON.parse(stdout.slice(stdout.indexOf('\n[') + 1)) as {
          filename: string;
          files: { path: string }[];
        }[];
        return report[0];
      })(),
      startGateway(),
      localSqlitePrebuild(join(work, 'prebuilds')),
    ]);
    gw = gateway;
    const paths = packed.files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining(['bin/tape.js', 'dist/cli.js', 'dist/main.js', 'program/tape.so']),
    );
    expect(paths.filter((p) => /^(src|test|bench|tools|node_modules)\//.test(p))).toEqual([]);
    await run(
      'npm',
      [
        'install',
        '-g',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        join(work, packed.filename),
      ],
      {
        cwd,
        env: { ...process.env, ...prebuildEnv },
        maxBuffer: 64 * 1024 * 1024,
        timeout: 480_000,
      },
    );
    tape = join(prefix, 'bin', 'tape');
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    await gw?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('answers --version with the package version and --help with its commands', async () => {
    const home = newHome('plain');
    const v = await tapeIn(home, ['--version']);
    expect(v).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const help = await tapeIn(home, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: tape \[options\] \[command\]/);
    for (const command of ['keygen', 'airdrop', 'create', 'deploy', 'network']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
  });

  it('creates a wallet in ~/.config/tape and reserves a tape through a real gateway', async () => {
    const home = newHome('fresh');
    const keygen = await tapeIn(home, ['keygen']);
    expect(keygen.code).toBe(0);
    const path = join(home, '.config', 'tape', 'id.json');
    expect(keygen.stdout).toContain(`keypair: ${path}`);
    expect(await tapeIn(home, ['airdrop'])).toMatchObject({ code: 0 });
    const created = await tapeIn(home, ['create', '--capacity', '1m', '--duration', '1d']);
    expect(created.stderr).not.toMatch(/^error:/m);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^tape address: +\w{32,44}$/m);
    // tape's own wallet is no fallback: no note about which keypair signs.
    expect(created.stderr).not.toContain("Solana CLI's keypair");
  });

  it("signs with the Solana CLI's configured keypair when tape has none, and says so on stderr", async () => {
    const home = newHome('solana-user');
    const wallet = Keypair.generate();
    const keyPath = join(home, 'wallets', 'dev.json');
    writeKeypair(keyPath, wallet);
    mkdirSync(join(home, '.config', 'solana', 'cli'), { recursive: true });
    writeFileSync(
      join(home, '.config', 'solana', 'cli', 'config.yml'),
      `---\njson_rpc_url: ${gw.rpcUrl}\nkeypair_path: ${keyPath}\ncommitment: confirmed\n`,
    );
    const r = await tapeIn(home, ['airdrop', '--json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { wallet: string }).wallet).toBe(wallet.publicKey.toBase58());
    expect(r.stderr).toBe(
      `using the Solana CLI's keypair ${keyPath} (keypair_path in ${join(home, '.config', 'solana', 'cli', 'config.yml')}; ${join(home, '.config', 'tape', 'id.json')} does not exist)\n`,
    );
  });

  it('says in one line, without a stack, that dist/ is missing', async () => {
    const bare = join(work, 'bare', 'bin');
    mkdirSync(bare, { recursive: true });
    copyFileSync(join(REPO_ROOT, 'bin', 'tape.js'), join(bare, 'tape.js'));
    const r = await run(process.execPath, [join(bare, 'tape.js'), '--version']).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: the tape CLI is not built (${join(work, 'bare', 'dist', 'cli.js')} is missing): run npm run build in ${join(work, 'bare')}\n`,
    );
  });
});
