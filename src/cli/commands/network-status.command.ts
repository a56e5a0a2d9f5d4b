import { Option, SubCommand } from 'nest-commander';
import { programVersionText } from '../../chain/program-version';
import { ProgramStatus, ProgramStatusReader } from '../network/program-status';
import { keyValueLines } from '../output/key-value-lines';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { TapeCommand } from './tape-command';

interface NetworkStatusOptions extends GlobalOptions {
  program?: string;
}

@SubCommand({
  name: 'status',
  description:
    'show the deployed tape program: its ELF (size, SHA-256, version), upgrade authority, and whether it is the local build',
})
export class NetworkStatusCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly reader: ProgramStatusReader,
  ) {
    super(ctx);
  }

  @Option({
    flags: '--program <path>',
    description: 'the local build to compare with (default: the committed program/tape.so)',
  })
  parseProgram(value: string): string {
    return value;
  }

  async run(_args: string[], options: NetworkStatusOptions = {}): Promise<void> {
    const target = this.start(options);
    const status = await this.reader.status(options.program);
    if (target.json) this.printer.json(statusJson(status));
    else this.printer.lines(statusLines(status, target.rpcUrl));
  }
}

function statusJson(s: ProgramStatus): unknown {
  const d = s.deployed;
  return {
    program_id: s.programId.toBase58(),
    program_data: s.programData.toBase58(),
    deployed: d && {
      elf_bytes: d.elf.length,
      sha256: d.sha256,
      version: programVersionText(d.version),
      upgrade_authority: d.authority?.toBase58() ?? null,
      final: d.authority === null,
      max_data_len: d.capacity,
      slot: Number(d.slot),
    },
    local: {
      path: s.local.path,
      bytes: s.local.elf.length,
      sha256: s.local.sha256,
      version: programVersionText(s.local.version),
    },
    matches_local: s.matchesLocal,
  };
}

function statusLines(s: ProgramStatus, rpcUrl: string): string[] {
  const d = s.deployed;
  const local = `${s.local.path} (${s.local.elf.length} bytes, sha256 ${s.local.sha256}, version ${programVersionText(s.local.version) ?? 'none'})`;
  if (!d) {
    return keyValueLines([
      ['program id', s.programId.toBase58()],
      ['deployed', `no program on ${rpcUrl} (tape network deploy)`],
      ['local build', local],
    ]);
  }
  return keyValueLines([
    ['program id', s.programId.toBase58()],
    ['program data', `${s.programData.toBase58()} (room for ${d.capacity} bytes)`],
    ['deployed ELF', `${d.elf.length} bytes, sha256 ${d.sha256}`],
    ['version', programVersionText(d.version) ?? 'none (a build from before versions)'],
    ['upgrade authority', d.authority?.toBase58() ?? 'none (final: the program can never change)'],
    ['last deployed', `slot ${d.slot}`],
    ['local build', local],
    ['matches local', s.matchesLocal ? 'yes' : 'no'],
  ]);
}
