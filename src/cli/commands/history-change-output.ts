import { labelFromAddress } from '../../chain/tape-label';
import { keyValueLines } from '../output/key-value-lines';
import { Printer } from '../output/printer';
import { CliTarget } from '../session/cli-target';
import { HistoryChange } from '../versions/tape-history.service';

/** What `tape rollback`, `promote`, `alias rm` and `keep` print: the tape, its current version. */
export function printHistoryChange(
  printer: Printer,
  target: CliTarget,
  change: HistoryChange,
  extra: Record<string, string | number> = {},
): void {
  const tape = change.tape.toBase58();
  if (target.json) {
    printer.json({
      tape,
      version: change.version,
      previous: change.previous,
      changed: change.changed,
      sequence: change.sequence,
      signature: change.signature ?? null,
      ...extra,
    });
    return;
  }
  const version =
    change.version === change.previous
      ? `${change.version} (unchanged)`
      : `${change.version} (was ${change.previous})`;
  printer.lines(
    keyValueLines([
      ['tape address', tape],
      ['version', version],
      ...Object.entries(extra).map(([k, v]): [string, string] => [k, String(v)]),
      ['URL', target.siteUrls(labelFromAddress(change.tape), tape).url],
    ]),
  );
}
