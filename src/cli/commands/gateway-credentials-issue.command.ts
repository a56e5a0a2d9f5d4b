import { Option, SubCommand } from 'nest-commander';
import { addressFromLabel, labelFromAddress, parseAddress } from '../../chain/tape-label';
import { AppConfig } from '../../config/app-config';
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
    for (const line of syncExample(bucket, s3Endpoint(this.gatewayConfig()))) {
      this.printer.note(line);
    }
  }
}

/**
 * How to publish a directory with the credential (docs/s3.md, "Syncing a site"). Plain
 * `aws s3 sync` uploads a file whose size or modification time changed (newer than the
 * object's LastModified); rclone with `--update --use-server-modtime` does the same from the
 * listing alone. `--size-only` would skip a file edited to the same size: never advise it.
 */
export function syncExample(bucket: string, endpoint: string): string[] {
  return [
    'sync a site (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to the two values above):',
    `  aws s3 sync ./site s3://${bucket} --delete --endpoint-url ${endpoint}`,
    `  rclone sync ./site :s3:${bucket} --update --use-server-modtime --s3-provider Other --s3-env-auth --s3-endpoint ${endpoint}`,
    'both upload every file changed since its last upload (newer than the object, or of another size); --size-only would skip a file edited to the same size',
  ];
}

/** The S3 listener's URL as this machine reaches it (a wildcard address means loopback). */
function s3Endpoint(config: AppConfig): string {
  const host = config.gateway.host;
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const literal = reachable.includes(':') ? `[${reachable}]` : reachable;
  return `http://${literal}:${config.gateway.s3.port}`;
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
