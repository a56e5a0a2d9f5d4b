import { Command } from 'nest-commander';
import { CompletionScripts, SHELLS } from '../completion/completion-scripts';
import { CommandContext } from '../session/command-context';
import { TapeCommand } from './tape-command';

@Command({
  name: 'completion',
  arguments: '<shell>',
  argsDescription: { shell: SHELLS.join(', ') },
  description:
    'print a shell completion script for every tape command and option (bash: source <(tape completion bash))',
})
export class CompletionCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly scripts: CompletionScripts,
  ) {
    super(ctx);
  }

  async run([shell]: string[]): Promise<void> {
    this.printer.line(this.scripts.script(shell).trimEnd());
  }
}
