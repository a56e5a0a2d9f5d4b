import { Injectable } from '@nestjs/common';
import { Printer } from '../output/printer';
import { CliConfigStore } from './cli-config-store';
import { CliEnvironment } from './cli-environment';
import { TapeSession } from './tape-session';

/**
 * What every command needs: where to print, the config directory, the environment, and the
 * invocation's session (which a `tape` command starts with its options).
 */
@Injectable()
export class CommandContext {
  constructor(
    readonly printer: Printer,
    readonly store: CliConfigStore,
    readonly env: CliEnvironment,
    readonly session: TapeSession,
  ) {}
}
