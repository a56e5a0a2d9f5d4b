import { Command } from 'nest-commander';
import { tableLines } from '../output/key-value-lines';
import { isoTime } from '../output/units';
import { CommandContext } from '../session/command-context';
import { GlobalOptions } from '../session/cli-target';
import { TapeHistoryService } from '../versions/tape-history.service';
import { TapeCommand } from './tape-command';

@Command({
  name: 'versions',
  description:
    "list the tape's kept versions, newest first (VERSION, PUBLISHED, FILES, BYTES, ALIASES; * marks the current one)",
})
export class VersionsCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    private readonly history: TapeHistoryService,
  ) {
    super(ctx);
  }

  async run(_args: string[], options: GlobalOptions = {}): Promise<void> {
    const target = this.start(options);
    const listed = await this.history.list();
    const { record, rows } = listed;
    if (target.json) {
      this.printer.json({
        tape: listed.address.toBase58(),
        current: record.version,
        latest: record.latestVersion,
        keep: record.keep,
        kept_bytes: record.keptBytes,
        versions: rows.map((r) => ({
          version: r.version,
          published_at: isoTime(r.publishedAt),
          files: r.files,
          bytes: r.bytes,
          aliases: r.aliases,
          current: r.current,
        })),
      });
      return;
    }
    if (listed.filesUnknown) this.printer.note(`warning: FILES unknown: ${listed.filesUnknown}`);
    if (rows.length === 0) {
      this.printer.note(`no versions on tape ${listed.address.toBase58()} yet (tape deploy)`);
      return;
    }
    this.printer.note(
      `${rows.length} kept (the newest ${record.keep}, the current one and aliased ones); ${record.keptBytes} bytes kept`,
    );
    this.printer.lines(
      tableLines(
        ['VERSION', 'PUBLISHED', 'FILES', 'BYTES', 'ALIASES'],
        rows.map((r) => [
          `${r.current ? '*' : ' '}${r.version}`,
          isoTime(r.publishedAt),
          r.files === null ? '?' : String(r.files),
          String(r.bytes),
          r.aliases.join(',') || '-',
        ]),
      ),
    );
  }
}
