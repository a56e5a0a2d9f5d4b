import { PublicKey } from '@solana/web3.js';
import { Command, Option } from 'nest-commander';
import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';
import { keyValueLines } from '../output/key-value-lines';
import { TapeDelegation } from '../reservation/tape-delegation';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { TapeCommand } from './tape-command';

interface DelegateOptions extends GlobalOptions {
  revoke?: boolean;
}

@Command({
  name: 'delegate',
  arguments: '[gateway_public_key]',
  argsDescription: {
    gateway_public_key: "the gateway's key (base58) that may then write to the tape",
  },
  description: 'let a gateway write to the tape (for bucket sync), or --revoke it',
})
export class DelegateCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly delegation: TapeDelegation,
  ) {
    super(ctx);
  }

  @Option({ flags: '--revoke', description: 'remove the delegate' })
  parseRevoke(): boolean {
    return true;
  }

  async run([key]: string[], options: DelegateOptions = {}): Promise<void> {
    if (options.revoke && key !== undefined) {
      throw new CliError('delegate: give a gateway public key or --revoke, not both');
    }
    if (!options.revoke && key === undefined) {
      throw new CliError('delegate: a gateway public key is required (or --revoke)');
    }
    const delegate = options.revoke ? null : parseKey(key);
    const target = this.start(options);
    const tape = await this.delegation.set(delegate);
    const value = delegate?.toBase58() ?? null;
    if (target.json) {
      this.printer.json({ tape: tape.toBase58(), delegate: value });
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['tape address', tape.toBase58()],
        ['delegate', value ?? 'none'],
      ]),
    );
  }
}

function parseKey(text: string): PublicKey {
  const trimmed = text.trim();
  if (/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(trimmed)) {
    try {
      const key = new PublicKey(trimmed);
      if (key.toBase58() === trimmed) return key;
    } catch {
      // falls through to the error below
    }
  }
  throw new CliError(`bad gateway public key '${printable(text)}': expected a base58 public key`);
}
