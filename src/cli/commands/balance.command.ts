import { Command } from 'nest-commander';
import { keyValueLines } from '../output/key-value-lines';
import { formatSol, formatTokens } from '../output/units';
import { WalletFunding } from '../funding/wallet-funding';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { TapeCommand } from './tape-command';

@Command({ name: 'balance', description: "show the wallet's SOL and storage-token balances" })
export class BalanceCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly funding: WalletFunding,
  ) {
    super(ctx);
  }

  async run(_args: string[], options: GlobalOptions = {}): Promise<void> {
    const target = this.start(options);
    const { wallet, lamports, tokens } = await this.funding.walletBalance();
    if (target.json) {
      this.printer.json({
        wallet: wallet.toBase58(),
        lamports,
        sol: formatSol(lamports),
        tokens,
        storage_tokens: formatTokens(tokens),
      });
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['wallet', wallet.toBase58()],
        ['SOL', formatSol(lamports)],
        ['storage tokens', formatTokens(tokens)],
      ]),
    );
  }
}
