import { Injectable } from '@nestjs/common';
import { Printer } from '../output/printer';
import { CliConfigStore } from './cli-config-store';
import { CliEnvironment } from './cli-environment';
import { CliTarget } from './cli-target';

/**
 * What every command needs: where to print, the config directory, the environment, and the
 * invocation's target (which a `tape` command starts with its options).
 */
@Injectable()
export class CommandContext {
  constructor(
    readonly printer: Printer,
    readonly store: CliConfigStore,
    readonly env: CliEnvironment,
    readonly target: CliTarget,
  ) {}
}
