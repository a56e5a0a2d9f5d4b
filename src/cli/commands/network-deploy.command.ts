import { Option, SubCommand } from 'nest-commander';
import { programVersionText } from '../../chain/program-version';
import { parseSize } from '../input/size-parser';
import { keyValueLines } from '../output/key-value-lines';
import { formatSol } from '../output/units';
import { DeployResult } from '../network/program-deployer';
import {
  ProgramDeployment,
  ProgramDeployments,
  ProgramDeployOptions,
} from '../network/program-deployment';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { TapeCommand } from './tape-command';

interface NetworkDeployCommandOptions extends GlobalOptions, ProgramDeployOptions {}

@SubCommand({
  name: 'deploy',
  description:
    'deploy the tape program (program/tape.so) through the BPF Upgradeable Loader, or upgrade it',
})
export class NetworkDeployCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly deployments: ProgramDeployments,
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

  async run(_args: string[], options: NetworkDeployCommandOptions = {}): Promise<void> {
    const target = this.start(options);
    const deployment = await this.deployments.deploy(options);
    this.print(target.json, deployment);
  }

  private print(json: boolean, { path, result, spent, rent }: ProgramDeployment): void {
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
