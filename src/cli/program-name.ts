import { Injectable, OnModuleInit } from '@nestjs/common';
import { Command } from 'commander';
import { InjectCommander } from 'nest-commander';
import { cliVersion } from './cli-version';

/**
 * The root program: usage lines say `tape` however the script was started (`node dist/cli.js`,
 * bin/tape.js, npx), and global options may come before the command.
 */
@Injectable()
export class ProgramName implements OnModuleInit {
  constructor(@InjectCommander() private readonly program: Command) {}

  onModuleInit(): void {
    this.program.name('tape');
    this.program.version(cliVersion(), '-V, --version', 'print the version of tape and exit');
    this.program.description(
      'Host static sites on tapes: prepaid storage on the chain, served by a gateway.',
    );
    // The global options are also accepted before the command (`tape -u <url> info`); each
    // command declares them too (TapeCommand), so they show in its --help and work after it.
    this.program
      .option(
        '-k, --keypair <path>',
        "signing keypair file (default: config keypair, id.json in the config directory, else the Solana CLI's keypair)",
      )
      .option(
        '-u, --url <rpc_url>',
        "chain RPC endpoint or moniker: localhost, devnet, testnet, mainnet-beta (l, d, t, m); default: TAPE_RPC_URL, config url, the Solana CLI's json_rpc_url, or http://127.0.0.1:8899",
      )
      .option('--tape <address>', 'the tape to act on (default: the active tape)')
      .option('--json', 'print the result as JSON')
      .option(
        '--program-id <address>',
        "the tape program on this chain (default: TAPE_PROGRAM_ID, config program_id, or the local network's)",
      )
      .option(
        '--with-compute-unit-price <micro-lamports>',
        'priority fee of every transaction, in micro-lamports per compute unit',
      );
  }
}
