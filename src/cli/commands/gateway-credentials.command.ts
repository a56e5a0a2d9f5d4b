import { CommandRunner, SubCommand } from 'nest-commander';
import { GatewayCredentialsIssueCommand } from './gateway-credentials-issue.command';
import { GatewayCredentialsListCommand } from './gateway-credentials-list.command';
import { GatewayCredentialsRevokeCommand } from './gateway-credentials-revoke.command';

/** `tape gateway credentials issue|list|revoke`: a group; alone it shows its help. */
@SubCommand({
  name: 'credentials',
  description: "issue, list and revoke S3 credentials (each scoped to one tape's bucket)",
  subCommands: [
    GatewayCredentialsIssueCommand,
    GatewayCredentialsListCommand,
    GatewayCredentialsRevokeCommand,
  ],
})
export class GatewayCredentialsCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.help({ error: true });
  }
}
