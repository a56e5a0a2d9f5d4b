import { PublicKey } from '@solana/web3.js';
import { Option, SubCommand } from 'nest-commander';
import { WalletFunding } from '../funding/wallet-funding';
import { parseSol } from '../input/amount-parser';
import { parsePublicKey } from '../input/key-parser';
import { formatSol } from '../output/units';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { printTransfer } from './funding-lines';
import { TapeCommand } from './tape-command';

interface FundOptions extends GlobalOptions {
  sol?: number;
}

const DEFAULT_LAMPORTS = 1_000_000_000;

@SubCommand({
  name: 'fund',
  arguments: '<pubkey>',
  argsDescription: { pubkey: "the account to send SOL to (a gateway's key: tape gateway key)" },
  description: "send SOL from the wallet to an account, e.g. the writer gateway's key",
})
export class NetworkFundCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly funding: WalletFunding,
  ) {
    super(ctx);
  }

  @Option({ flags: '--sol <amount>', description: 'SOL to send (default 1)' })
  parseSol(value: string): number {
    return parseSol(value);
  }

  async run([pubkey]: string[], options: FundOptions = {}): Promise<void> {
    const to: PublicKey = parsePublicKey(pubkey, 'public key');
    const target = this.start(options);
    const r = await this.funding.fund(to, options.sol ?? DEFAULT_LAMPORTS);
    printTransfer(this.printer, target.json, r, {
      jsonKey: 'sent_lamports',
      jsonValue: r.amount,
      line: ['sent', `${formatSol(r.amount)} SOL`],
    });
  }
}
