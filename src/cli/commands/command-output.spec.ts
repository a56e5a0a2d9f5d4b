import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { ChainError } from '../../chain/chain-error';
import { KeypairFileError } from '../../chain/keypair-file';
import { TapeErrorCode } from '../../chain/program-errors';
import { CliError } from '../cli-error';
import { DeployResult, SiteDeployer } from '../deploy/site-deployer';
import { describeError } from '../output/error-line';
import { RecordingPrinter } from '../output/recording-printer';
import { CliConfigStore } from '../session/cli-config-store';
import { CliEnvironment } from '../session/cli-environment';
import { CommandContext } from '../session/command-context';
import { CliSigners } from '../session/cli-signers';
import { CliTarget } from '../session/cli-target';
import { ConfigGetCommand } from './config-get.command';
import { ConfigSetCommand } from './config-set.command';
import { DeployCommand } from './deploy.command';
import { DeployDryRun } from '../deploy/deploy-dry-run';
import { RemovalConfirmation } from '../prompt/removal-confirmation';
import { KeygenCommand } from './keygen.command';

function context(env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'tape-cli-'));
  const environment = new CliEnvironment({ TAPE_CONFIG_DIR: dir, ...env });
  const printer = new RecordingPrinter();
  const store = new CliConfigStore(environment);
  const target = new CliTarget(store, environment);
  const ctx = new CommandContext(printer, store, environment, target);
  const signers = new CliSigners(target, store, environment, printer);
  return { dir, printer, ctx, signers };
}

const result: DeployResult = {
  tape: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
  label: 'label',
  url: 'http://label.localhost:8080/',
  hostUrl: 'http://label.localhost:8080/',
  pathUrl: 'http://127.0.0.1:8080/site/9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin/',
  files: 12,
  uploaded: 3,
  unchanged: 9,
  bytesUploaded: 100,
  pruned: 0,
  version: 4,
  root: 'ab'.repeat(32),
  published: true,
  signature: 'sig',
  addedBytes: 2048,
};

describe('command output', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  const newDeploy = (ctx: CommandContext, deployer: SiteDeployer) => {
    const removals = { confirm: jest.fn().mockResolvedValue(undefined) };
    const command = new DeployCommand(
      ctx,
      deployer,
      {} as DeployDryRun,
      removals as unknown as RemovalConfirmation,
    );
    return { command, removals };
  };

  it('deploy prints the three lines of the spec and the gateway path URL', async () => {
    const { dir, printer, ctx } = context();
    dirs.push(dir);
    const deployer = { deploy: jest.fn().mockResolvedValue(result) } as unknown as SiteDeployer;
    const { command, removals } = newDeploy(ctx, deployer);
    await command.run(['site/index.html'], { prune: true });
    expect(printer.out).toEqual([
      'Deployed 12 files (3 uploaded, 9 unchanged)',
      'Tape: 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
      'URL:  http://label.localhost:8080/',
      'Path: http://127.0.0.1:8080/site/9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin/',
    ]);
    expect(printer.notes).toContain(
      `published version 4 (root ${'ab'.repeat(8)}…, 2048 bytes added)`,
    );
    expect((deployer.deploy as jest.Mock).mock.calls[0][0]).toBe('site/index.html');
    const deployOptions = (deployer.deploy as jest.Mock).mock.calls[0][1] as {
      confirmRemoval: (names: string[], tape: string) => Promise<void>;
    };
    expect(deployOptions).toEqual({
      prune: true,
      concurrency: 128,
      maxWaitMs: 120_000,
      confirmRemoval: expect.any(Function),
    });
    // --prune's removals go through the confirmation, --yes passed along.
    await deployOptions.confirmRemoval(['a.txt'], 'T');
    expect(removals.confirm).toHaveBeenCalledWith({
      command: 'tape deploy --prune',
      names: ['a.txt'],
      tape: 'T',
      yes: false,
    });
  });

  it('deploy --json prints the result as one JSON document', async () => {
    const { dir, printer, ctx } = context({
      TAPE_UPLOAD_CONCURRENCY: '5',
      TAPE_UPLOAD_MAX_WAIT: '10m',
    });
    dirs.push(dir);
    const deployer = { deploy: jest.fn().mockResolvedValue(result) } as unknown as SiteDeployer;
    await newDeploy(ctx, deployer).command.run(['index.html'], { json: true });
    expect(JSON.parse(printer.out.join('\n'))).toEqual({
      tape: result.tape,
      label: 'label',
      url: 'http://label.localhost:8080/',
      host_url: 'http://label.localhost:8080/',
      path_url: 'http://127.0.0.1:8080/site/9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin/',
      files: 12,
      uploaded: 3,
      unchanged: 9,
      bytes_uploaded: 100,
      pruned: 0,
      version: 4,
      root: 'ab'.repeat(32),
      published: true,
      added_bytes: 2048,
      signature: 'sig',
    });
    expect((deployer.deploy as jest.Mock).mock.calls[0][1]).toEqual({
      prune: false,
      concurrency: 5,
      maxWaitMs: 600_000,
      confirmRemoval: undefined,
    });
  });

  it('keygen writes a Solana CLI keypair and refuses to overwrite it without --force', async () => {
    const { dir, printer, ctx, signers } = context();
    dirs.push(dir);
    await new KeygenCommand(ctx, signers).run([], {});
    const path = join(dir, 'id.json');
    const bytes = JSON.parse(readFileSync(path, 'utf8')) as number[];
    expect(bytes).toHaveLength(64);
    const pubkey = Keypair.fromSecretKey(Uint8Array.from(bytes)).publicKey.toBase58();
    expect(printer.out).toEqual([`keypair: ${path}`, `pubkey:  ${pubkey}`]);
    await expect(new KeygenCommand(ctx, signers).run([], {})).rejects.toThrow(
      /already exists \(use --force/,
    );
    await new KeygenCommand(ctx, signers).run([], { force: true });
    expect(readFileSync(path, 'utf8')).not.toBe(JSON.stringify(bytes));
  });

  it('config set checks values and config get reads them back', async () => {
    const { dir, printer, ctx } = context();
    dirs.push(dir);
    await new ConfigGetCommand(ctx).run(['site_domain'], {});
    expect(printer.out.pop()).toBe('localhost:8080');
    await new ConfigSetCommand(ctx).run(['site_domain', 'Sites.Example.com'], {});
    expect(printer.out.pop()).toBe('site_domain: sites.example.com');
    await new ConfigGetCommand(ctx).run(['site_domain'], {});
    expect(printer.out.pop()).toBe('sites.example.com');
    await expect(
      new ConfigSetCommand(ctx).run(['site_domain', 'not a domain'], {}),
    ).rejects.toThrow(/bad site domain/);
    await expect(new ConfigSetCommand(ctx).run(['colour', 'red'], {})).rejects.toThrow(
      /unknown config key 'colour'/,
    );
    await expect(new ConfigSetCommand(ctx).run(['active_tape', 'xyz'], {})).rejects.toThrow(
      /bad tape address/,
    );
    await expect(new ConfigGetCommand(ctx).run(['active_tape'], {})).rejects.toThrow(
      'active_tape is not set',
    );
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({
      site_domain: 'sites.example.com',
    });
    expect(existsSync(join(dir, 'id.json'))).toBe(false);
  });
});

describe('describeError', () => {
  it('gives program errors their fix and never a stack', () => {
    expect(
      describeError(
        new ChainError('program', 'insufficient capacity', TapeErrorCode.InsufficientCapacity),
      ),
    ).toBe('insufficient capacity (fix: tape resize --add <size>)');
    expect(
      describeError(new ChainError('program', 'tape expired', TapeErrorCode.TapeExpired)),
    ).toMatch(
      /^tape expired: it cannot be extended, resized or written to, .*no new version can be published.*tape create /,
    );
    expect(
      describeError(
        new ChainError('program', 'unauthorized signer', TapeErrorCode.UnauthorizedSigner),
      ),
    ).toMatch(/^unauthorized signer: .*-k/);
    expect(
      describeError(new ChainError('unreachable', 'cannot reach the chain RPC at http://x')),
    ).toBe('cannot reach the chain RPC at http://x');
    expect(describeError(new KeypairFileError('no keypair at /x'))).toBe('no keypair at /x');
    expect(describeError(new CliError('two\nlines'))).toBe('two lines');
    const unexpected = describeError(new TypeError('x is undefined'));
    expect(unexpected).toBe('unexpected error: x is undefined');
    expect(unexpected).not.toMatch(/\bat\b.*\.ts/);
  });
});
