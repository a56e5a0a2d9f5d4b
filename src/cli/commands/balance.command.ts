import { Command } from 'nest-commander';
import { keyValueLines } from '../output/key-value-lines';
import { formatSol, formatTokens } from '../output/units';
import { GlobalOptions } from '../session/tape-session';
import { TapeCommand } from './tape-command';

@Command({ name: 'balance', description: "show the wallet's SOL and storage-token balances" })
export class BalanceCommand extends TapeCommand {
  async run(_args: string[], options: GlobalOptions = {}): Promise<void> {
    const session = this.session(options);
    const wallet = session.wallet().publicKey;
    const { lamports, tokens } = await session.chain.reader.getBalances(wallet);
    if (session.json) {
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
