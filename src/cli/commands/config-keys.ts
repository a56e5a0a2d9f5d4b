import { parseAddress } from '../../chain/tape-label';
import { CliError } from '../cli-error';
import { parsePublicKey } from '../input/key-parser';
import { printable } from '../input/size-parser';
import { CONFIG_KEYS, ConfigKey } from '../session/cli-config-store';
import { DEFAULT_SITE_DOMAIN } from '../session/cli-environment';
import { parseSiteDomain } from '../session/site-url';

export function parseConfigKey(text: string): ConfigKey {
  if ((CONFIG_KEYS as readonly string[]).includes(text)) return text as ConfigKey;
  throw new CliError(`unknown config key '${printable(text)}' (known: ${CONFIG_KEYS.join(', ')})`);
}

/** Values are checked when set, so a typo fails now rather than at the next deploy. */
export function parseConfigValue(key: ConfigKey, value: string): string {
  switch (key) {
    case 'site_domain':
      return parseSiteDomain(value);
    case 'active_tape': {
      const address = parseAddress(value.trim());
      if (!address) throw new CliError(`bad tape address '${printable(value)}'`);
      return address;
    }
    case 'program_id':
      return parsePublicKey(value, 'program id').toBase58();
  }
}

export const CONFIG_DEFAULTS: Partial<Record<ConfigKey, string>> = {
  site_domain: DEFAULT_SITE_DOMAIN,
};
