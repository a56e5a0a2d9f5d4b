import { Module } from '@nestjs/common';
import { OnDemandChainModule } from '../chain/on-demand-chain.module';
import { LazyConfigModule } from '../config/lazy-config.module';
import { CredentialsModule } from '../credentials/credentials.module';
import { AirdropCommand } from './commands/airdrop.command';
import { AliasRmCommand } from './commands/alias-rm.command';
import { AliasCommand } from './commands/alias.command';
import { BalanceCommand } from './commands/balance.command';
import { CompletionCommand } from './commands/completion.command';
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
import { VerifyCommand } from './commands/verify.command';
import { TapeVerifierService } from './verify/tape-verifier.service';
import { NodeVerifyHttp, VerifyHttp } from './verify/verify-http';
import { KeepCommand } from './commands/keep.command';
import { KeygenCommand } from './commands/keygen.command';
import { NetworkDeployCommand } from './commands/network-deploy.command';
import { NetworkFundCommand } from './commands/network-fund.command';
import { NetworkInitCommand } from './commands/network-init.command';
import { NetworkStatusCommand } from './commands/network-status.command';
import { NetworkMintCommand } from './commands/network-mint.command';
import { NetworkCommand } from './commands/network.command';
import { ObjectLsCommand } from './commands/object-ls.command';
import { ObjectRmCommand } from './commands/object-rm.command';
import { ObjectCommand } from './commands/object.command';
import { PromoteCommand } from './commands/promote.command';
import { ResizeCommand } from './commands/resize.command';
import { RollbackCommand } from './commands/rollback.command';
import { VersionsCommand } from './commands/versions.command';
import { CompletionScripts } from './completion/completion-scripts';
import { SiteDeployer } from './deploy/site-deployer';
import { DeployDryRun } from './deploy/deploy-dry-run';
import { PromptTerminal, StdioPromptTerminal } from './prompt/prompt-terminal';
import { RemovalConfirmation } from './prompt/removal-confirmation';
import { PaidSender } from './funding/paid-sender';
import { WalletFunding } from './funding/wallet-funding';
import { NetworkInitializations } from './network/network-initialization';
import { NetworkInitializer } from './network/network-initializer';
import { ProgramDeployer } from './network/program-deployer';
import { ProgramDeployments } from './network/program-deployment';
import { ProgramStatusReader } from './network/program-status';
import { TapeReservations } from './reservation/tape-reservations';
import { Printer, StdioPrinter } from './output/printer';
import { CliConfigStore } from './session/cli-config-store';
import { CliEnvironment } from './session/cli-environment';
import { CommandContext } from './session/command-context';
import { InterruptNotice } from './session/interrupt-notice';
import { CliChain } from './session/cli-chain';
import { CliGateway } from './session/cli-gateway';
import { CliSigners } from './session/cli-signers';
import { CliTarget } from './session/cli-target';
import { ObjectRemoval } from './deploy/object-removal';
import { TapeDelegation } from './reservation/tape-delegation';
import { TapeReads } from './versions/tape-reads';
import { TapeHistoryService } from './versions/tape-history.service';
import { ProgramName } from './program-name';

/**
 * The `tape` CLI: thin commands over the gateway's own config, chain and credentials modules,
 * whose services they receive by injection. nest-commander builds every provider before it
 * parses the command line, and most commands must work without the gateway's configuration, so
 * each of these is read on first use:
 * - LazyConfigModule: the gateway's validated configuration, read by `tape gateway …` only;
 * - CredentialsModule.forLazyConfig(): the gateway's CredentialRegistry, opened by
 *   `tape gateway credentials …`, closed when the command ends;
 * - OnDemandChainModule: ChainModule's services for the ChainConfig of the command's options
 *   (`-u`, `--program-id`, `--with-compute-unit-price`), which the command hands CliTarget at
 *   the start of `run()`; one Connection per invocation, connected on first use by CliChain and
 *   closed when the command ends (`tape config get`, `keygen`, `--help` never connect).
 * Services receive the invocation's target (CliTarget), signers (CliSigners) and the clients of
 * its chain (CliChain) and gateway (CliGateway) by injection; commands parse, call them, print.
 */
@Module({
  imports: [LazyConfigModule, CredentialsModule.forLazyConfig(), OnDemandChainModule],
  providers: [
    { provide: Printer, useClass: StdioPrinter },
    { provide: CliEnvironment, useFactory: () => new CliEnvironment(process.env) },
    CliConfigStore,
    CommandContext,
    InterruptNotice,
    CliTarget,
    CliSigners,
    CliChain,
    CliGateway,
    PaidSender,
    TapeDelegation,
    TapeReads,
    ObjectRemoval,
    ProgramName,
    SiteDeployer,
    DeployDryRun,
    { provide: PromptTerminal, useFactory: () => new StdioPromptTerminal() },
    RemovalConfirmation,
    TapeHistoryService,
    VersionsCommand,
    RollbackCommand,
    PromoteCommand,
    AliasCommand,
    AliasRmCommand,
    KeepCommand,
    TapeReservations,
    KeygenCommand,
    AirdropCommand,
    BalanceCommand,
    CreateCommand,
    DeployCommand,
    ObjectCommand,
    ObjectLsCommand,
    ObjectRmCommand,
    InfoCommand,
    VerifyCommand,
    TapeVerifierService,
    { provide: VerifyHttp, useClass: NodeVerifyHttp },
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
    ProgramStatusReader,
    NetworkInitializer,
    NetworkInitializations,
    ProgramDeployments,
    NetworkCommand,
    NetworkDeployCommand,
    NetworkInitCommand,
    NetworkStatusCommand,
    CompletionScripts,
    CompletionCommand,
    WalletFunding,
    NetworkFundCommand,
    NetworkMintCommand,
  ],
})
export class CliModule {}
