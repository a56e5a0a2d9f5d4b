import { PublicKey } from '@solana/web3.js';
import { Option, SubCommand } from 'nest-commander';
import { WalletFunding } from '../funding/wallet-funding';
import { parseSol } from '../input/amount-parser';
import { parsePublicKey } from '../input/key-parser';
import { keyValueLines } from '../output/key-value-lines';
import { formatSol } from '../output/units';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { balanceText } from './funding-lines';
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
    if (target.json) {
      this.printer.json({
        to: r.to.toBase58(),
        sent_lamports: r.amount,
        signature: r.signature,
        balance: { lamports: r.balance.lamports, tokens: r.balance.tokens },
      });
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['to', r.to.toBase58()],
        ['sent', `${formatSol(r.amount)} SOL`],
        ['balance', balanceText(r.balance)],
        ['signature', r.signature],
      ]),
    );
  }
}
