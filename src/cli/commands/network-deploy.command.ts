import { Keypair, PublicKey } from '@solana/web3.js';
import { Option, SubCommand } from 'nest-commander';
import { toChainError } from '../../chain/chain-error';
import { readKeypair } from '../../chain/keypair-file';
import { probeLocalNetwork } from '../../chain/local-network';
import { programVersionText } from '../../chain/program-version';
import { tapeProgramElfPath } from '../../localnet/svm/tape-program-elf';
import { CliError } from '../cli-error';
import { parseSize } from '../input/size-parser';
import { keyValueLines } from '../output/key-value-lines';
import { formatSol } from '../output/units';
import { DeployResult, ProgramDeployer } from '../network/program-deployer';
import { readProgramFile } from '../network/program-file';
import { upgradeAuthoritySource } from '../network/upgrade-policy';
import { PlainWriteProgress, TerminalWriteProgress } from '../network/write-progress';
import { CommandContext } from '../session/command-context';
import { GlobalOptions, TapeSession } from '../session/tape-session';
import { TapeCommand } from './tape-command';

interface NetworkDeployOptions extends GlobalOptions {
  program?: string;
  programKeypair?: string;
  upgradeAuthority?: string;
  maxLen?: number;
  final?: boolean;
  allowDowngrade?: boolean;
}

@SubCommand({
  name: 'deploy',
  description:
    'deploy the tape program (program/tape.so) through the BPF Upgradeable Loader, or upgrade it',
})
export class NetworkDeployCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly deployer: ProgramDeployer,
  ) {
    super(ctx);
  }

  @Option({
    flags: '--program <path>',
    description: 'the ELF to deploy (default: the committed program/tape.so)',
  })
  parseProgram(value: string): string {
    return value;
  }

  @Option({
    flags: '--program-keypair <file>',
    description: 'keypair of the program id (needed for a first deploy; its public key is the id)',
  })
  parseProgramKeypair(value: string): string {
    return value;
  }

  @Option({
    flags: '--upgrade-authority <keypair>',
    description:
      'keypair that may upgrade the program: required on every cluster but the local network (there the default is the wallet, -k)',
  })
  parseUpgradeAuthority(value: string): string {
    return value;
  }

  @Option({
    flags: '--max-len <bytes>',
    description: 'room for upgrades in the program data account (default: twice the ELF)',
  })
  parseMaxLen(value: string): number {
    return parseSize(value, 'max length');
  }

  @Option({
    flags: '--final',
    description: 'drop the upgrade authority once deployed: the program can never change again',
  })
  parseFinal(): boolean {
    return true;
  }

  @Option({
    flags: '--allow-downgrade',
    description:
      'replace the deployed program even with a build whose version is not newer than its own',
  })
  parseAllowDowngrade(): boolean {
    return true;
  }

  async run(_args: string[], options: NetworkDeployOptions = {}): Promise<void> {
    const session = this.session(options);
    const path = options.program ?? tapeProgramElfPath();
    const elf = readProgramFile(path);
    const programKeypair = options.programKeypair ? readKeypair(options.programKeypair) : null;
    const programId = this.programId(session, programKeypair);
    const payer = session.wallet();
    const authority = await this.upgradeAuthority(session, options.upgradeAuthority, payer);
    const rpc = session.chain.rpc.connection;
    const terminal = this.printer.terminal();
    const progress = terminal
      ? new TerminalWriteProgress(terminal)
      : new PlainWriteProgress((line) => this.printer.note(line));

    const work = async () => {
      const before = await rpc.getBalance(payer.publicKey);
      const result = await this.deployer.deploy({
        rpc,
        rpcUrl: session.rpcUrl,
        elf,
        programId,
        programKeypair,
        payer,
        authority,
        maxDataLen: options.maxLen,
        final: options.final === true,
        allowDowngrade: options.allowDowngrade === true,
        computeUnitPrice: session.computeUnitPrice,
        progress,
      });
      const [program, data] = await rpc.getMultipleAccountsInfo([programId, result.programData]);
      const after = await rpc.getBalance(payer.publicKey);
      return {
        result,
        spent: before - after,
        rent: { program: program?.lamports ?? 0, programData: data?.lamports ?? 0 },
      };
    };
    const { result, spent, rent } = await session.guarded(work()).catch((err: unknown) => {
      throw err instanceof CliError ? err : toChainError(err, session.rpcUrl);
    });
    this.print(session.json, path, result, spent, rent);
  }

  /** The wallet on the local network; elsewhere only a keypair named by --upgrade-authority. */
  private async upgradeAuthority(
    session: TapeSession,
    given: string | undefined,
    payer: Keypair,
  ): Promise<Keypair> {
    const network =
      given === undefined ? await probeLocalNetwork(session.rpcUrl) : { local: true as const };
    const source = upgradeAuthoritySource(network, session.rpcUrl, given);
    return source === 'wallet' ? payer : readKeypair(source.keypairFile);
  }

  /** The id is the program keypair's; `--program-id` (or the configured id) must agree with it. */
  private programId(session: TapeSession, keypair: Keypair | null): PublicKey {
    const configured = session.explicitProgramId();
    if (keypair && configured && !configured.equals(keypair.publicKey)) {
      throw new CliError(
        `--program-keypair is for ${keypair.publicKey.toBase58()} but the program id is ${configured.toBase58()} (from --program-id, TAPE_PROGRAM_ID or the config key program_id)`,
      );
    }
    return keypair?.publicKey ?? session.programId;
  }

  private print(
    json: boolean,
    path: string,
    result: DeployResult,
    spent: number,
    rent: { program: number; programData: number },
  ): void {
    const authority = result.upgradeAuthority?.toBase58() ?? null;
    if (json) {
      this.printer.json({
        program_id: result.programId.toBase58(),
        program_data: result.programData.toBase58(),
        action: result.action,
        upgrade_authority: authority,
        final: authority === null,
        elf: { path, bytes: result.elfLength },
        version: programVersionText(result.version),
        previous_version: programVersionText(result.previousVersion),
        max_data_len: result.maxDataLen,
        buffer: result.buffer?.toBase58() ?? null,
        chunks: {
          total: result.chunks,
          written: result.chunksWritten,
          resumed: result.chunksResumed,
        },
        rent_lamports: { program: rent.program, program_data: rent.programData },
        spent_lamports: spent,
      });
      return;
    }
    const chunks =
      result.chunks === 0
        ? 'nothing written'
        : `${result.chunks} chunks (${result.chunksWritten} written by this run, ${result.chunksResumed} already in the buffer)`;
    this.printer.lines(
      keyValueLines([
        ['program id', result.programId.toBase58()],
        ['action', result.action + (result.madeFinal ? ', made final' : '')],
        ['program data', `${result.programData.toBase58()} (room for ${result.maxDataLen} bytes)`],
        ['ELF', `${path} (${result.elfLength} bytes): ${chunks}`],
        ['version', describeVersions(result)],
        ['upgrade authority', authority ?? 'none (final: the program can never change)'],
        [
          'rent',
          `program data ${formatSol(rent.programData)} SOL, program account ${formatSol(rent.program)} SOL`,
        ],
        ['spent', `${formatSol(spent)} SOL (rent and fees paid by this run)`],
      ]),
    );
  }
}

/** `1.1.0 (was 1.0.0)` after an upgrade; `none` for a build without one. */
function describeVersions(result: DeployResult): string {
  const now = programVersionText(result.version) ?? 'none';
  if (result.action !== 'upgraded') return now;
  return `${now} (was ${programVersionText(result.previousVersion) ?? 'none'})`;
}
