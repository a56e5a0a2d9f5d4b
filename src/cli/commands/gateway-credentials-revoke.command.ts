import { SubCommand } from 'nest-commander';
import { ACCESS_KEY_ID_PATTERN } from '../../credentials/credential-registry';
import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';
import { GatewayOperatorCommand, GatewayOptions } from './gateway-operator-command';

@SubCommand({
  name: 'revoke',
  arguments: '<access_key_id>',
  argsDescription: { access_key_id: 'the credential to revoke, e.g. TKABCDEFGHIJKLMNOPQR' },
  description: 'revoke an S3 credential; a running gateway refuses it from its next request',
})
export class GatewayCredentialsRevokeCommand extends GatewayOperatorCommand {
  async run([id]: string[], options?: GatewayOptions): Promise<void> {
    const { json } = this.options(options);
    const accessKeyId = id.trim();
    if (!ACCESS_KEY_ID_PATTERN.test(accessKeyId)) {
      throw new CliError(
        `bad access key id '${printable(id)}': expected TK followed by 18 characters A-Z, 2-7`,
      );
    }
    const outcome = await this.withCredentials((db) => db.revoke(accessKeyId));
    if (outcome === 'unknown') throw new CliError(`no credential ${accessKeyId} was issued here`);
    if (json) {
      this.printer.json({ access_key_id: accessKeyId, revoked: true, outcome });
      return;
    }
    this.printer.line(
      outcome === 'revoked' ? `revoked ${accessKeyId}` : `${accessKeyId} was already revoked`,
    );
  }
}
