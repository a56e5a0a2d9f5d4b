import { Injectable } from '@nestjs/common';
import { labelFromAddress } from '../../chain/tape-label';
import { keyValueLines } from '../output/key-value-lines';
import { CommandContext } from '../session/command-context';
import { CliTarget } from '../session/cli-target';
import { HistoryChange, TapeHistoryService } from '../versions/tape-history.service';
import { TapeCommand } from './tape-command';

/**
 * `tape rollback`, `promote`, `alias rm` and `keep`: each parses its argument, asks
 * TapeHistoryService for the one change and prints it the same way.
 */
@Injectable()
export abstract class HistoryChangeCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    protected readonly history: TapeHistoryService,
  ) {
    super(ctx);
  }

  /** Prints the change: the tape and its current version, with what the command adds. */
  protected printChange(
    target: CliTarget,
    change: HistoryChange,
    extra: Record<string, string | number> = {},
  ): void {
    const tape = change.tape.toBase58();
    if (target.json) {
      this.printer.json({
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
    this.printer.lines(
      keyValueLines([
        ['tape address', tape],
        ['version', version],
        ...Object.entries(extra).map(([k, v]): [string, string] => [k, String(v)]),
        ['URL', target.siteUrls(labelFromAddress(change.tape), tape).url],
      ]),
    );
  }
}
