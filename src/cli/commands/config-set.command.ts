import { SubCommand } from 'nest-commander';
import { GlobalOptions } from '../session/tape-session';
import { parseConfigKey, parseConfigValue } from './config-keys';
import { TapeCommand } from './tape-command';

@SubCommand({
  name: 'set',
  arguments: '<key> <value>',
  argsDescription: { key: 'site_domain, active_tape or program_id', value: 'the new value' },
  description: 'set a CLI setting',
})
export class ConfigSetCommand extends TapeCommand {
  async run([keyText, valueText]: string[], options: GlobalOptions = {}): Promise<void> {
    const key = parseConfigKey(keyText);
    const value = parseConfigValue(key, valueText);
    const session = this.session(options);
    session.store.set(key, value);
    if (session.json) this.printer.json({ [key]: value });
    else this.printer.line(`${key}: ${value}`);
  }
}
