import { Command, Option } from 'nest-commander';
import { WalletFunding } from '../funding/wallet-funding';
import { parseSol, parseTokens } from '../input/amount-parser';
import { keyValueLines } from '../output/key-value-lines';
import { formatSol, formatTokens } from '../output/units';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { balanceText } from './funding-lines';
import { TapeCommand } from './tape-command';

interface AirdropOptions extends GlobalOptions {
  sol?: number;
  tokens?: bigint;
}

@Command({
  name: 'airdrop',
  description:
    "fund the wallet: the local network's faucets (SOL and storage tokens), or devnet's and testnet's SOL faucet (storage tokens only if the wallet holds the mint authority)",
})
export class AirdropCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly funding: WalletFunding,
  ) {
    super(ctx);
  }

  @Option({
    flags: '--sol <amount>',
    description: 'SOL to request (default 10 on a local network, 1 on devnet and testnet)',
  })
  parseSol(value: string): number {
    return parseSol(value);
  }

  @Option({ flags: '--tokens <amount>', description: 'storage tokens to request (default 1000)' })
  parseTokens(value: string): bigint {
    return parseTokens(value);
  }

  async run(_args: string[], options: AirdropOptions = {}): Promise<void> {
    const target = this.start(options);
    const r = await this.funding.airdrop({
      lamports: options.sol,
      tokens: options.tokens,
    });
    if (r.tokensSkipped) this.printer.note(`no storage tokens: ${r.tokensSkipped}`);
    if (target.json) {
      this.printer.json({
        wallet: r.wallet.toBase58(),
        network: r.network,
        received: { lamports: r.received.lamports, tokens: r.received.tokens },
        tokens_skipped: r.tokensSkipped ?? null,
        balance: { lamports: r.balance.lamports, tokens: r.balance.tokens },
      });
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['wallet', r.wallet.toBase58()],
        ...(r.network === 'local'
          ? []
          : [['network', `${r.network} (${target.rpcUrl})`] as [string, string]]),
        [
          'received',
          `${formatSol(r.received.lamports)} SOL, ${formatTokens(r.received.tokens)} storage tokens`,
        ],
        ['balance', balanceText(r.balance)],
      ]),
    );
  }
}
