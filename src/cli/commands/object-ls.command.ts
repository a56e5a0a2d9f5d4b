import { SubCommand } from 'nest-commander';
import bs58 from 'bs58';
import { tableLines } from '../output/key-value-lines';
import { GlobalOptions } from '../session/cli-target';
import { TapeReadCommand } from './tape-read-command';

@SubCommand({
  name: 'ls',
  description: "list the objects of the tape's current version (TYPE, SIZE, CONTENT-TYPE, NAME)",
})
export class ObjectLsCommand extends TapeReadCommand {
  async run(_args: string[], options: GlobalOptions = {}): Promise<void> {
    const target = this.start(options);
    const { address, current } = await this.reads.currentVersion();
    // A version lists its names in UTF-8 byte order, as S3 lists keys: stable across locales.
    const entries = current.entries;
    if (target.json) {
      this.printer.json(
        entries.map((e) => ({
          type: 'object',
          name: e.name,
          size: e.size,
          content_type: e.contentType,
          // The object's address (docs/object.md, "Objects of versions"): tape || commitment.
          track: bs58.encode(Buffer.concat([address.toBuffer(), e.commitment])),
          commitment: e.commitment.toString('hex'),
          streamed: e.location.kind === 'stream',
          version: current.version,
        })),
      );
      return;
    }
    if (entries.length === 0) {
      this.printer.note(`no objects on tape ${address.toBase58()}`);
      return;
    }
    this.printer.note(`version ${current.version}: ${entries.length} objects`);
    this.printer.lines(
      tableLines(
        ['TYPE', 'SIZE', 'CONTENT-TYPE', 'NAME'],
        entries.map((e) => ['object', String(e.size), e.contentType, e.name]),
      ),
    );
  }
}
