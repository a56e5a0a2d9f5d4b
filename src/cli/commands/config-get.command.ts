import { SubCommand } from 'nest-commander';
import { CliError } from '../cli-error';
import { keyValueLines } from '../output/key-value-lines';
import { CONFIG_KEYS, ConfigKey } from '../session/cli-config-store';
import { GlobalOptions } from '../session/cli-target';
import { originText, parseConfigKey } from './config-keys';
import { TapeCommand } from './tape-command';

@SubCommand({
  name: 'get',
  arguments: '[key]',
  argsDescription: { key: `${CONFIG_KEYS.join(', ')}; all settings when omitted` },
  description: 'show the value each setting has for this command line, and where it comes from',
})
export class ConfigGetCommand extends TapeCommand {
  async run([keyText]: string[], options: GlobalOptions = {}): Promise<void> {
    const target = this.start(options);
    const keys: ConfigKey[] = keyText === undefined ? [...CONFIG_KEYS] : [parseConfigKey(keyText)];
    // The value every other command would use: flag > environment > config.json > Solana CLI > default.
    const resolved = keys.map((key) => ({ key, setting: target.settings.resolve(key) }));
    if (target.json) {
      const values = Object.fromEntries(
        resolved.map(({ key, setting }) => [key, setting?.value ?? null]),
      );
      const sources = Object.fromEntries(
        resolved.map(({ key, setting }) => [
          key,
          setting ? { source: setting.source, origin: setting.origin } : null,
        ]),
      );
      this.printer.json(
        keyText === undefined
          ? { config_dir: target.store.dir, ...values, sources }
          : { ...values, ...(sources[keys[0]] ?? { source: null, origin: null }) },
      );
      return;
    }
    if (keyText !== undefined) {
      // One key: just the value, for scripts (`$(tape config get url)`).
      const setting = resolved[0].setting;
      if (!setting) throw new CliError(`${keys[0]} is not set`);
      this.printer.line(setting.value);
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['config_dir', target.store.dir],
        ...resolved.map(({ key, setting }): [string, string] => [
          key,
          setting ? `${setting.value} (${originText(setting)})` : '(not set)',
        ]),
      ]),
    );
  }
}
