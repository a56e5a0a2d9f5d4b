import { Command, Option } from 'nest-commander';
import { keyValueLines } from '../output/key-value-lines';
import { CliSigners } from '../session/cli-signers';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { TapeCommand } from './tape-command';

interface KeygenOptions extends GlobalOptions {
  force?: boolean;
}

@Command({
  name: 'keygen',
  description: 'create the wallet keypair (id.json in the config directory, or the -k path)',
})
export class KeygenCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly signers: CliSigners,
  ) {
    super(ctx);
  }

  @Option({ flags: '--force', description: 'replace an existing keypair (the old key is lost)' })
  parseForce(): boolean {
    return true;
  }

  async run(_args: string[], options: KeygenOptions = {}): Promise<void> {
    const target = this.start(options);
    const created = this.signers.createWallet(options.force === true);
    const [path, pubkey] = [created.path, created.pubkey.toBase58()];
    if (target.json) {
      this.printer.json({ keypair: path, pubkey });
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['keypair', path],
        ['pubkey', pubkey],
      ]),
    );
    this.printer.note('Keep this file secret: it signs and pays for everything the CLI does.');
  }
}
