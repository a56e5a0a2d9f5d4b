import { SubCommand } from 'nest-commander';
import { CliError } from '../cli-error';
import { keyValueLines } from '../output/key-value-lines';
import { CONFIG_KEYS, ConfigKey } from '../session/cli-config-store';
import { GlobalOptions } from '../session/tape-session';
import { CONFIG_DEFAULTS, parseConfigKey } from './config-keys';
import { TapeCommand } from './tape-command';

@SubCommand({
  name: 'get',
  arguments: '[key]',
  argsDescription: { key: 'site_domain, active_tape or program_id; all settings when omitted' },
  description: 'show a CLI setting (or all of them)',
})
export class ConfigGetCommand extends TapeCommand {
  async run([keyText]: string[], options: GlobalOptions = {}): Promise<void> {
    const session = this.session(options);
    const stored = session.store.read();
    const keys: ConfigKey[] = keyText === undefined ? [...CONFIG_KEYS] : [parseConfigKey(keyText)];
    const values = Object.fromEntries(
      keys.map((k) => [k, stored[k] ?? CONFIG_DEFAULTS[k] ?? null]),
    );
    if (session.json) {
      this.printer.json(
        keyText === undefined ? { config_dir: session.store.dir, ...values } : values,
      );
      return;
    }
    if (keyText !== undefined) {
      // One key: just the value, for scripts (`$(tape config get site_domain)`).
      const value = values[keys[0]];
      if (value === null) throw new CliError(`${keys[0]} is not set`);
      this.printer.line(value);
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['config_dir', session.store.dir],
        ...keys.map((k): [string, string] => [k, values[k] ?? '(not set)']),
      ]),
    );
  }
}
