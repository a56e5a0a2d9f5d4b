import { Option, SubCommand } from 'nest-commander';
import { ObjectRemoval } from '../deploy/object-removal';
import { RemovalConfirmation } from '../prompt/removal-confirmation';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { TapeCommand } from './tape-command';

@SubCommand({
  name: 'rm',
  arguments: '<names...>',
  argsDescription: { names: 'object names, e.g. docs/index.html (all removed in one version)' },
  description: 'remove object names: publishes one version of the site without them',
})
export class ObjectRmCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly removal: ObjectRemoval,
    private readonly confirmation: RemovalConfirmation,
  ) {
    super(ctx);
  }

  @Option({
    flags: '-y, --yes',
    description: 'remove several names without asking (needed without a terminal)',
  })
  parseYes(): boolean {
    return true;
  }

  async run(names: string[], options: GlobalOptions & { yes?: boolean } = {}): Promise<void> {
    const target = this.start(options);
    const { removed, tape, version } = await this.removal.remove(names, (all, address) =>
      this.confirmation.confirm({
        command: 'tape object rm',
        names: all,
        tape: address,
        yes: options.yes === true,
      }),
    );
    if (target.json) {
      this.printer.json({ removed, tape: tape.toBase58(), version });
      return;
    }
    this.printer.note(`published version ${version}`);
    this.printer.lines(removed.map((n) => `removed ${n}`));
  }
}
