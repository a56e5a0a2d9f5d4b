import { Balances, TransferResult } from '../funding/wallet-funding';
import { keyValueLines } from '../output/key-value-lines';
import { Printer } from '../output/printer';
import { formatSol, formatTokens } from '../output/units';

/** `10 SOL, 1000 storage tokens`; only SOL where the cluster has no storage token. */
export function balanceText(balance: Balances): string {
  const sol = `${formatSol(balance.lamports)} SOL`;
  return balance.tokens === null ? sol : `${sol}, ${formatTokens(balance.tokens)} storage tokens`;
}

/**
 * What `tape network fund` and `network mint` print: the recipient, what was sent (`sent`
 * lines and JSON field: its name and value), its balance now and the transaction.
 */
export function printTransfer(
  printer: Printer,
  json: boolean,
  r: TransferResult,
  sent: { jsonKey: string; jsonValue: number | bigint; line: [string, string] },
): void {
  if (json) {
    printer.json({
      to: r.to.toBase58(),
      [sent.jsonKey]: sent.jsonValue,
      signature: r.signature,
      balance: { lamports: r.balance.lamports, tokens: r.balance.tokens },
    });
    return;
  }
  printer.lines(
    keyValueLines([
      ['to', r.to.toBase58()],
      sent.line,
      ['balance', balanceText(r.balance)],
      ['signature', r.signature],
    ]),
  );
}
