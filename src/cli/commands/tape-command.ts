import { Injectable } from '@nestjs/common';
import { CommandRunner, Option } from 'nest-commander';
import { Printer } from '../output/printer';
import { CommandContext } from '../session/command-context';
import { CliTarget, GlobalOptions } from '../session/cli-target';

/**
 * The options every `tape` command takes (spec 4.2, "Global options"), declared once here:
 * nest-commander discovers `@Option` methods through the prototype chain, so each command
 * that extends this class gets `-k`, `-u`, `--tape`, `--json`, `--program-id` and
 * `--with-compute-unit-price` in its parser and `--help`.
 * `@Injectable()` here emits the constructor's metadata, which commands without a constructor
 * of their own inherit.
 */
@Injectable()
export abstract class TapeCommand extends CommandRunner {
  constructor(protected readonly ctx: CommandContext) {
    super();
  }

  protected get printer(): Printer {
    return this.ctx.printer;
  }

  @Option({
    flags: '-k, --keypair <path>',
    description:
      "signing keypair file (Solana CLI format); default: config keypair, id.json in the config directory, else the Solana CLI's keypair",
  })
  parseKeypair(value: string): string {
    return value;
  }

  @Option({
    flags: '-u, --url <rpc_url>',
    description:
      "chain RPC endpoint, or localhost, devnet, testnet, mainnet-beta (l, d, t, m); default: TAPE_RPC_URL, config url, the Solana CLI's json_rpc_url, or http://127.0.0.1:8899",
  })
  parseUrl(value: string): string {
    return value;
  }

  @Option({
    flags: '--tape <address>',
    description: 'the tape to act on (address or label); default: the active tape',
  })
  parseTape(value: string): string {
    return value;
  }

  @Option({ flags: '--json', description: 'print the result as JSON' })
  parseJson(): boolean {
    return true;
  }

  @Option({
    flags: '--program-id <address>',
    description:
      "the tape program on this chain; default: TAPE_PROGRAM_ID, config program_id, or the local network's",
  })
  parseProgramId(value: string): string {
    return value;
  }

  @Option({
    flags: '--with-compute-unit-price <micro-lamports>',
    description: 'priority fee of every transaction, in micro-lamports per compute unit',
  })
  parseComputeUnitPrice(value: string): string {
    return value;
  }

  /**
   * The invocation's target (CliModule's CliTarget), started with this command's options; the
   * services' signers and chain and gateway clients follow it.
   */
  protected start(options: GlobalOptions | undefined): CliTarget {
    // Options given before the command name are the root program's (src/cli/program-name.ts).
    const all: GlobalOptions = { ...(this.command?.optsWithGlobals() ?? {}), ...(options ?? {}) };
    const { keypair, url, tape, json, programId, withComputeUnitPrice } = all;
    return this.ctx.target.start({ keypair, url, tape, json, programId, withComputeUnitPrice });
  }
}
