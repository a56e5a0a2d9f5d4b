import { Command, Option } from 'nest-commander';
import { ChainError } from '../../chain/chain-error';
import { notLocalError, probeLocalNetwork } from '../../chain/local-network';
import { CliError } from '../cli-error';
import { parseSol, parseTokens } from '../input/amount-parser';
import { keyValueLines } from '../output/key-value-lines';
import { formatSol, formatTokens } from '../output/units';
import { GlobalOptions } from '../session/tape-session';
import { TapeCommand } from './tape-command';

interface AirdropOptions extends GlobalOptions {
  sol?: number;
  tokens?: bigint;
}

const DEFAULT_LAMPORTS = 10 * 1_000_000_000;
const DEFAULT_TOKENS = 1000n * 1_000_000n;

@Command({
  name: 'airdrop',
  description:
    "fund the wallet from the local network's faucet (SOL and storage tokens); refused on any other network",
})
export class AirdropCommand extends TapeCommand {
  @Option({ flags: '--sol <amount>', description: 'SOL to request (default 10)' })
  parseSol(value: string): number {
    return parseSol(value);
  }

  @Option({ flags: '--tokens <amount>', description: 'storage tokens to request (default 1000)' })
  parseTokens(value: string): bigint {
    return parseTokens(value);
  }

  async run(_args: string[], options: AirdropOptions = {}): Promise<void> {
    const session = this.session(options);
    const wallet = session.wallet().publicKey;
    const { faucet, reader } = session.chain;
    const lamports = options.sol ?? DEFAULT_LAMPORTS;
    const tokens = options.tokens ?? DEFAULT_TOKENS;
    // Decided before any faucet request: none is ever sent to a public cluster.
    const network = await session.guarded(probeLocalNetwork(session.rpcUrl));
    if (!network.local) throw notLocalError(session.rpcUrl, network.reason);
    // Tokens first: a cluster without the faucet says so in one clear line before SOL is asked for.
    try {
      await session.guarded(faucet.requestStorageTokens(wallet, tokens));
    } catch (err) {
      if (err instanceof ChainError && (err.kind === 'unreachable' || /faucet/.test(err.message))) {
        throw err;
      }
      // Something answered, but not a local network's faucet (a web server, a proxy page).
      throw new CliError(
        `the storage-token faucet exists only on a local network; ${session.rpcUrl} did not answer as one`,
      );
    }
    await session.guarded(faucet.requestAirdrop(wallet, lamports));
    const balance = await reader.getBalances(wallet);
    if (session.json) {
      this.printer.json({
        wallet: wallet.toBase58(),
        received: { lamports, tokens },
        balance: { lamports: balance.lamports, tokens: balance.tokens },
      });
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['wallet', wallet.toBase58()],
        ['received', `${formatSol(lamports)} SOL, ${formatTokens(tokens)} storage tokens`],
        [
          'balance',
          `${formatSol(balance.lamports)} SOL, ${formatTokens(balance.tokens)} storage tokens`,
        ],
      ]),
    );
  }
}
