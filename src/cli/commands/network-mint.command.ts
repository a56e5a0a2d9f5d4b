import { SubCommand } from 'nest-commander';
import { WalletFunding } from '../funding/wallet-funding';
import { parseTokens } from '../input/amount-parser';
import { parsePublicKey } from '../input/key-parser';
import { formatTokens } from '../output/units';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { printTransfer } from './funding-lines';
import { TapeCommand } from './tape-command';

@SubCommand({
  name: 'mint',
  arguments: '<pubkey> <amount>',
  argsDescription: {
    pubkey: 'the wallet to give storage tokens to',
    amount: 'storage tokens, e.g. 1000 or 2.5',
  },
  description:
    "mint storage tokens to a wallet (the wallet running it must hold the storage token's mint authority)",
})
export class NetworkMintCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly funding: WalletFunding,
  ) {
    super(ctx);
  }

  async run([pubkey, amountText]: string[], options: GlobalOptions = {}): Promise<void> {
    const to = parsePublicKey(pubkey, 'public key');
    const amount = parseTokens(amountText);
    const target = this.start(options);
    const r = await this.funding.mint(to, amount);
    printTransfer(this.printer, target.json, r, {
      jsonKey: 'minted_tokens',
      jsonValue: amount,
      line: ['minted', `${formatTokens(amount)} storage tokens`],
    });
  }
}
