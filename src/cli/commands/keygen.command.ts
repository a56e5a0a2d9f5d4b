import { Keypair } from '@solana/web3.js';
import { existsSync } from 'node:fs';
import { Command, Option } from 'nest-commander';
import { writeKeypair } from '../../chain/keypair-file';
import { CliError } from '../cli-error';
import { keyValueLines } from '../output/key-value-lines';
import { GlobalOptions } from '../session/tape-session';
import { TapeCommand } from './tape-command';

interface KeygenOptions extends GlobalOptions {
  force?: boolean;
}

@Command({
  name: 'keygen',
  description: 'create the wallet keypair (id.json in the config directory, or the -k path)',
})
export class KeygenCommand extends TapeCommand {
  @Option({ flags: '--force', description: 'replace an existing keypair (the old key is lost)' })
  parseForce(): boolean {
    return true;
  }

  async run(_args: string[], options: KeygenOptions = {}): Promise<void> {
    const session = this.session(options);
    const path = session.keypairPath;
    if (existsSync(path) && !options.force) {
      throw new CliError(
        `${path} already exists (use --force to replace it; the old key is then lost)`,
      );
    }
    const keypair = Keypair.generate();
    writeKeypair(path, keypair, options.force === true);
    const pubkey = keypair.publicKey.toBase58();
    if (session.json) {
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
