import { Injectable } from '@nestjs/common';
import { CommandRunner, Option } from 'nest-commander';
import { AppConfig } from '../../config/app-config';
import { ConfigError } from '../../config/config-loader';
import { LazyAppConfig } from '../../config/lazy-config.module';
import { CredentialRegistry } from '../../credentials/credential-registry';
import { LazyCredentialRegistry } from '../../credentials/lazy-credential-registry';
import { CliError } from '../cli-error';
import { Printer } from '../output/printer';
import { CommandContext } from '../session/command-context';

export interface GatewayOptions {
  json?: boolean;
  tape?: string;
}

/**
 * Operator commands (`tape gateway …`) act on the gateway's data directory on this machine, not
 * over HTTP: the directory is found exactly as the gateway finds it (`TAPE_DATA_DIR`, a
 * `TAPE_GATEWAY_CONFIG` file, `TAPE__STORAGE__DATA_DIR`; default ./.tape-data), so running them
 * where the gateway runs, with its environment, reaches its key and its credential database
 * (or, with `storage.shared.redis_url`, the credentials every replica shares). Both the
 * configuration and the credentials are read only when a command asks (LazyAppConfig,
 * CredentialsModule.forLazyConfig), so every other `tape` command works without them.
 */
@Injectable()
export abstract class GatewayOperatorCommand extends CommandRunner {
  constructor(
    protected readonly ctx: CommandContext,
    private readonly config: LazyAppConfig,
    private readonly credentials: LazyCredentialRegistry,
  ) {
    super();
  }

  protected get printer(): Printer {
    return this.ctx.printer;
  }

  @Option({ flags: '--json', description: 'print the result as JSON' })
  parseJson(): boolean {
    return true;
  }

  /** The options of this command merged with those given before the command name. */
  protected options<T extends GatewayOptions>(options: T | undefined): T {
    return { ...(this.command?.optsWithGlobals() ?? {}), ...(options ?? ({} as T)) };
  }

  protected gatewayConfig(): AppConfig {
    try {
      return this.config.get();
    } catch (error) {
      if (error instanceof ConfigError) throw new CliError(error.message);
      throw error;
    }
  }

  /**
   * Runs `work` over the gateway's credentials (the data directory's SQLite, or the shared
   * Redis of `storage.shared.redis_url`); CredentialsModule closes them when the command ends.
   */
  protected async withCredentials<T>(work: (db: CredentialRegistry) => Promise<T>): Promise<T> {
    const config = this.gatewayConfig();
    const where = config.storage.shared.redis_url
      ? 'the shared redis'
      : `the credential database in ${config.storage.data_dir}`;
    let db: CredentialRegistry;
    try {
      db = this.credentials.open();
    } catch (error) {
      throw new CliError(`cannot open ${where}: ${(error as Error).message}`);
    }
    try {
      return await work(db);
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError(`cannot use ${where}: ${(error as Error).message}`);
    }
  }
}
