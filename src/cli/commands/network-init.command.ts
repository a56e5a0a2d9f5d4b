import { PublicKey } from '@solana/web3.js';
import { Option, SubCommand } from 'nest-commander';
import { parseTokens } from '../input/amount-parser';
import { parseDuration } from '../input/duration-parser';
import { parsePublicKey } from '../input/key-parser';
import { keyValueLines } from '../output/key-value-lines';
import { formatDuration, formatSol, formatTokens, isoTime } from '../output/units';
import {
  assertConfigAsAsked,
  NetworkInitializations,
  NetworkInitOptions,
} from '../network/network-initialization';
import { InitResult } from '../network/network-initializer';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { TapeCommand } from './tape-command';

interface NetworkInitCommandOptions extends GlobalOptions, NetworkInitOptions {}

@SubCommand({
  name: 'init',
  description:
    "initialise the deployed tape program: storage-token mint, treasury and the program's Config",
})
export class NetworkInitCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly initializations: NetworkInitializations,
  ) {
    super(ctx);
  }

  @Option({
    flags: '--mint <address>',
    description: 'use this SPL mint (6 decimals) as the storage token (default: create one)',
  })
  parseMint(value: string): PublicKey {
    return parsePublicKey(value, 'mint address');
  }

  @Option({
    flags: '--price <tokens>',
    description: 'storage tokens per MiB per epoch, e.g. 0.001 (0 for a free network)',
  })
  parsePrice(value: string): bigint {
    return /^\s*0+(\.0+)?\s*$/.test(value) ? 0n : parseTokens(value);
  }

  @Option({ flags: '--epoch-duration <time>', description: 'length of an epoch: 1h, 1d' })
  parseEpochDuration(value: string): number {
    return parseDuration(value, 'epoch duration');
  }

  @Option({
    flags: '--storage-authority <pubkey>',
    description: "the key that certifies uploads: the writer gateway's key (tape gateway key)",
  })
  parseStorageAuthority(value: string): PublicKey {
    return parsePublicKey(value, 'storage authority');
  }

  async run(_args: string[], options: NetworkInitCommandOptions = {}): Promise<void> {
    const target = this.start(options);
    const { result, spent } = await this.initializations.init(options);
    this.print(target.json, result, spent);
    assertConfigAsAsked(result);
  }

  private print(json: boolean, r: InitResult, spent: number): void {
    const v = r.values;
    if (json) {
      this.printer.json({
        program_id: r.programId.toBase58(),
        config: { address: r.config.toBase58(), outcome: r.configOutcome },
        mint: { address: r.mint.toBase58(), outcome: r.mintOutcome },
        treasury: { address: r.treasury.toBase58(), outcome: r.treasuryOutcome },
        admin: v.admin.toBase58(),
        storage_authority: v.storageAuthority.toBase58(),
        price_per_mib_epoch: v.pricePerMibEpoch,
        epoch_duration_secs: v.epochDurationSecs,
        genesis_time: isoTime(v.genesisTime),
        differences: r.differences,
        spent_lamports: spent,
      });
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['program id', r.programId.toBase58()],
        ['config', `${r.config.toBase58()} (${r.configOutcome})`],
        ['mint', `${r.mint.toBase58()} (${r.mintOutcome})`],
        ['treasury', `${r.treasury.toBase58()} (${r.treasuryOutcome})`],
        ['admin', v.admin.toBase58()],
        ['storage authority', v.storageAuthority.toBase58()],
        [
          'price',
          `${formatTokens(v.pricePerMibEpoch)} storage tokens per MiB per epoch (${v.pricePerMibEpoch} base units)`,
        ],
        ['epoch duration', formatDuration(v.epochDurationSecs)],
        ['genesis time', isoTime(v.genesisTime)],
        ['spent', `${formatSol(spent)} SOL (rent and fees paid by this run)`],
      ]),
    );
  }
}
