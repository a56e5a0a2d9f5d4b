import { SubCommand } from 'nest-commander';
import { tableLines } from '../output/key-value-lines';
import { isoTime } from '../output/units';
import { GatewayOperatorCommand, GatewayOptions } from './gateway-operator-command';

@SubCommand({
  name: 'list',
  description: 'list issued S3 credentials (ACCESS KEY ID, TAPE, CREATED, REVOKED); no secrets',
})
export class GatewayCredentialsListCommand extends GatewayOperatorCommand {
  async run(_args: string[], options?: GatewayOptions): Promise<void> {
    const { json } = this.options(options);
    const credentials = await this.withCredentials((db) => db.list());
    if (json) {
      this.printer.json(
        credentials.map((c) => ({
          access_key_id: c.accessKeyId,
          tape: c.tapeAddress,
          created_at: c.createdAt.toISOString(),
          revoked_at: c.revokedAt?.toISOString() ?? null,
        })),
      );
      return;
    }
    if (credentials.length === 0) {
      this.printer.note(
        'no S3 credentials issued (tape gateway credentials issue --tape <address>)',
      );
      return;
    }
    this.printer.lines(
      tableLines(
        ['ACCESS KEY ID', 'TAPE', 'CREATED', 'REVOKED'],
        credentials.map((c) => [
          c.accessKeyId,
          c.tapeAddress,
          isoTime(Math.floor(c.createdAt.getTime() / 1000)),
          c.revokedAt ? isoTime(Math.floor(c.revokedAt.getTime() / 1000)) : '-',
        ]),
      ),
    );
  }
}
