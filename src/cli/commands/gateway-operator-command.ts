import { Injectable } from '@nestjs/common';
import { CommandRunner, Option } from 'nest-commander';
import { ConfigError, loadConfig } from '../../config/config-loader';
import { CredentialDatabase } from '../../s3/tape-backend/credential-database';
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
 * where the gateway runs, with its environment, reaches its key and its credential database.
 */
@Injectable()
export abstract class GatewayOperatorCommand extends CommandRunner {
  constructor(protected readonly ctx: CommandContext) {
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

  protected gatewayConfig() {
    try {
      return loadConfig(process.env);
    } catch (error) {
      if (error instanceof ConfigError) throw new CliError(error.message);
      throw error;
    }
  }

  /** Runs `work` with the credential database open, and closes it. */
  protected withCredentials<T>(work: (db: CredentialDatabase) => T): T {
    const dataDir = this.gatewayConfig().storage.data_dir;
    let db: CredentialDatabase;
    try {
      db = CredentialDatabase.open(dataDir);
    } catch (error) {
      throw new CliError(
        `cannot open the credential database in ${dataDir}: ${(error as Error).message}`,
      );
    }
    try {
      return work(db);
    } finally {
      db.close();
    }
  }
}
