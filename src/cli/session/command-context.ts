import { Injectable } from '@nestjs/common';
import { Printer } from '../output/printer';
import { CliConfigStore } from './cli-config-store';
import { CliEnvironment } from './cli-environment';

/** What every command needs: where to print, the config directory, the environment. */
@Injectable()
export class CommandContext {
  constructor(
    readonly printer: Printer,
    readonly store: CliConfigStore,
    readonly env: CliEnvironment,
  ) {}
}
