import { Module } from '@nestjs/common';
import { LazyConfigModule } from '../config/lazy-config.module';
import { CredentialsModule } from '../credentials/credentials.module';
import { AirdropCommand } from './commands/airdrop.command';
import { BalanceCommand } from './commands/balance.command';
import { ConfigGetCommand } from './commands/config-get.command';
import { ConfigSetCommand } from './commands/config-set.command';
import { ConfigCommand } from './commands/config.command';
import { CreateCommand } from './commands/create.command';
import { DelegateCommand } from './commands/delegate.command';
import { DeployCommand } from './commands/deploy.command';
import { ExtendCommand } from './commands/extend.command';
import { GatewayCredentialsIssueCommand } from './commands/gateway-credentials-issue.command';
import { GatewayCredentialsListCommand } from './commands/gateway-credentials-list.command';
import { GatewayCredentialsRevokeCommand } from './commands/gateway-credentials-revoke.command';
import { GatewayCredentialsCommand } from './commands/gateway-credentials.command';
import { GatewayKeyCommand } from './commands/gateway-key.command';
import { GatewayCommand } from './commands/gateway.command';
import { InfoCommand } from './commands/info.command';
import { KeygenCommand } from './commands/keygen.command';
import { NetworkDeployCommand } from './commands/network-deploy.command';
import { NetworkInitCommand } from './commands/network-init.command';
import { NetworkCommand } from './commands/network.command';
import { ObjectLsCommand } from './commands/object-ls.command';
import { ObjectRmCommand } from './commands/object-rm.command';
import { ObjectCommand } from './commands/object.command';
import { ResizeCommand } from './commands/resize.command';
import { SiteDeployer } from './deploy/site-deployer';
import { NetworkInitializer } from './network/network-initializer';
import { ProgramDeployer } from './network/program-deployer';
import { Printer, StdioPrinter } from './output/printer';
import { CliConfigStore } from './session/cli-config-store';
import { CliEnvironment } from './session/cli-environment';
import { CommandContext } from './session/command-context';
import { ProgramName } from './program-name';

/**
 * The `tape` CLI: thin commands over the shared chain and tracks code. nest-commander builds
 * every provider before it parses the command line, and most commands must work without the
 * gateway's configuration, so these are read on first use:
 * - LazyConfigModule: the gateway's validated configuration, read by `tape gateway …` only;
 * - CredentialsModule.forLazyConfig(): the gateway's CredentialRegistry, opened by
 *   `tape gateway credentials …`, closed when the command ends.
 * Each invocation still builds its own chain services (ChainServices, wired in
 * src/chain/chain.module.ts) for the RPC URL of its options.
 */
@Module({
  imports: [LazyConfigModule, CredentialsModule.forLazyConfig()],
  providers: [
    { provide: Printer, useClass: StdioPrinter },
    { provide: CliEnvironment, useFactory: () => new CliEnvironment(process.env) },
    CliConfigStore,
    CommandContext,
    ProgramName,
    SiteDeployer,
    KeygenCommand,
    AirdropCommand,
    BalanceCommand,
    CreateCommand,
    DeployCommand,
    ObjectCommand,
    ObjectLsCommand,
    ObjectRmCommand,
    InfoCommand,
    ExtendCommand,
    ResizeCommand,
    DelegateCommand,
    ConfigCommand,
    ConfigSetCommand,
    ConfigGetCommand,
    GatewayCommand,
    GatewayKeyCommand,
    GatewayCredentialsCommand,
    GatewayCredentialsIssueCommand,
    GatewayCredentialsListCommand,
    GatewayCredentialsRevokeCommand,
    ProgramDeployer,
    NetworkInitializer,
    NetworkCommand,
    NetworkDeployCommand,
    NetworkInitCommand,
  ],
})
export class CliModule {}
