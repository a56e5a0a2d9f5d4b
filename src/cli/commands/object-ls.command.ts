import { SubCommand } from 'nest-commander';
import { TrackKind } from '../../chain/account-layouts';
import { tableLines } from '../output/key-value-lines';
import { GlobalOptions } from '../session/tape-session';
import { TapeCommand } from './tape-command';

@SubCommand({
  name: 'ls',
  description: 'list the objects of the tape (TYPE, SIZE, CONTENT-TYPE, NAME)',
})
export class ObjectLsCommand extends TapeCommand {
  async run(_args: string[], options: GlobalOptions = {}): Promise<void> {
    const session = this.session(options);
    const tape = session.tapeAddress();
    const names = await session.chain.reader.listNames(tape);
    // UTF-8 byte order, as S3 lists keys: stable across locales.
    names.sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
    if (session.json) {
      this.printer.json(
        names.map((n) => ({
          type: 'object',
          name: n.name,
          size: n.size,
          content_type: n.contentType,
          track: n.track.toBase58(),
          commitment: n.commitment.toString('hex'),
          streamed: n.kind === TrackKind.Manifest,
        })),
      );
      return;
    }
    if (names.length === 0) {
      this.printer.note(`no objects on tape ${tape.toBase58()}`);
      return;
    }
    this.printer.lines(
      tableLines(
        ['TYPE', 'SIZE', 'CONTENT-TYPE', 'NAME'],
        names.map((n) => ['object', String(n.size), n.contentType, n.name]),
      ),
    );
  }
}
