import { Option, SubCommand } from 'nest-commander';
import { addressFromLabel, labelFromAddress, parseAddress } from '../../chain/tape-label';
import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';
import { keyValueLines } from '../output/key-value-lines';
import { isoTime } from '../output/units';
import { GatewayOperatorCommand, GatewayOptions } from './gateway-operator-command';

@SubCommand({
  name: 'issue',
  description: "issue an S3 credential for one tape's bucket (the secret is printed once)",
})
export class GatewayCredentialsIssueCommand extends GatewayOperatorCommand {
  @Option({
    flags: '--tape <address>',
    description: 'the tape (address, or its label) the credential may write to',
  })
  parseTape(value: string): string {
    return value;
  }

  async run(_args: string[], options?: GatewayOptions): Promise<void> {
    const { json, tape } = this.options(options);
    if (tape === undefined) {
      throw new CliError('credentials issue: --tape <address> is required');
    }
    const address = parseTape(tape);
    const issued = await this.withCredentials((db) => db.issue(address));
    const bucket = labelFromAddress(address);
    if (json) {
      this.printer.json({
        access_key_id: issued.accessKeyId,
        secret_access_key: issued.secretAccessKey,
        tape: address,
        bucket,
        created_at: issued.createdAt.toISOString(),
      });
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['access key id', issued.accessKeyId],
        ['secret access key', issued.secretAccessKey],
        ['tape address', address],
        ['bucket', bucket],
        ['created', isoTime(Math.floor(issued.createdAt.getTime() / 1000))],
      ]),
    );
    this.printer.note(
      'the secret is shown only this once; the tape owner must also run: tape delegate <gateway key> (see tape gateway key)',
    );
  }
}

/** A base58 tape address, or a tape label (what the bucket is called). */
function parseTape(text: string): string {
  const trimmed = text.trim();
  const address = parseAddress(trimmed) ?? addressFromLabel(trimmed);
  if (!address) {
    throw new CliError(
      `bad tape '${printable(text)}': expected a tape address (base58) or its label`,
    );
  }
  return address;
}
