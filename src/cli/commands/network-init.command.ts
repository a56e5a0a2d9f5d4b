import { PublicKey } from '@solana/web3.js';
import { Option, SubCommand } from 'nest-commander';
import { toChainError } from '../../chain/chain-error';
import { CliError } from '../cli-error';
import { parseTokens } from '../input/amount-parser';
import { parseDuration } from '../input/duration-parser';
import { parsePublicKey } from '../input/key-parser';
import { keyValueLines } from '../output/key-value-lines';
import { formatDuration, formatSol, formatTokens, isoTime } from '../output/units';
import { InitResult, NetworkInitializer } from '../network/network-initializer';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/tape-session';
import { TapeCommand } from './tape-command';

interface NetworkInitOptions extends GlobalOptions {
  mint?: PublicKey;
  price?: bigint;
  epochDuration?: number;
  storageAuthority?: PublicKey;
}

@SubCommand({
  name: 'init',
  description:
    "initialise the deployed tape program: storage-token mint, treasury and the program's Config",
})
export class NetworkInitCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly initializer: NetworkInitializer,
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

  async run(_args: string[], options: NetworkInitOptions = {}): Promise<void> {
    const session = this.session(options);
    const payer = session.wallet();
    const rpc = session.chain.rpc.connection;
    const work = async () => {
      const before = await rpc.getBalance(payer.publicKey);
      const result = await this.initializer.init({
        rpc,
        rpcUrl: session.rpcUrl,
        ix: session.chain.ix,
        payer,
        mint: options.mint,
        price: options.price,
        epochDurationSecs: options.epochDuration,
        storageAuthority: options.storageAuthority,
        computeUnitPrice: session.computeUnitPrice,
        progress: (line) => this.printer.note(line),
      });
      return { result, spent: before - (await rpc.getBalance(payer.publicKey)) };
    };
    const { result, spent } = await session.guarded(work()).catch((err: unknown) => {
      throw err instanceof CliError ? err : toChainError(err, session.rpcUrl);
    });
    this.print(session.json, result, spent);
    if (result.differences.length > 0) {
      throw new CliError(
        `the Config of ${result.programId.toBase58()} already exists with other values: ${result.differences.join('; ')} (a Config is never overwritten)`,
      );
    }
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
