import { existsSync } from 'node:fs';
import { SubCommand } from 'nest-commander';
import { CONFIG_KEYS } from '../session/cli-config-store';
import { GlobalOptions } from '../session/cli-target';
import { parseConfigKey, parseConfigValue } from './config-keys';
import { TapeCommand } from './tape-command';

@SubCommand({
  name: 'set',
  arguments: '<key> <value>',
  argsDescription: {
    key: CONFIG_KEYS.join(', '),
    value: 'the new value (url also takes localhost, devnet, testnet, mainnet-beta)',
  },
  description: 'set a CLI setting (kept in config.json of the config directory)',
})
export class ConfigSetCommand extends TapeCommand {
  async run([keyText, valueText]: string[], options: GlobalOptions = {}): Promise<void> {
    const key = parseConfigKey(keyText);
    const value = parseConfigValue(key, valueText, this.ctx.env.homeDir);
    const target = this.start(options);
    target.store.set(key, value);
    if (target.json) this.printer.json({ [key]: value });
    else this.printer.line(`${key}: ${value}`);
    if (key === 'keypair' && !existsSync(value)) {
      this.printer.note(`${value} does not exist yet (create it: tape keygen)`);
    }
    // A flag or variable still wins over the file: say so rather than let it look ignored.
    const effective = target.settings.resolve(key);
    if (effective && (effective.source === 'flag' || effective.source === 'env')) {
      this.printer.note(`note: ${effective.origin} overrides it here (${effective.value})`);
    }
  }
}
