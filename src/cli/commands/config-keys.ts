import { parseAddress } from '../../chain/tape-label';
import { CliError } from '../cli-error';
import { parsePublicKey } from '../input/key-parser';
import { printable } from '../input/size-parser';
import { CONFIG_KEYS, ConfigKey } from '../session/cli-config-store';
import { ResolvedSetting } from '../session/cli-settings';
import { expandRpcMoniker } from '../session/rpc-url';
import { parseSiteDomain } from '../session/site-url';
import { expandHome } from '../session/solana-cli-config';
import { parseHttpUrl } from '../session/cli-target';

export function parseConfigKey(text: string): ConfigKey {
  if ((CONFIG_KEYS as readonly string[]).includes(text)) return text as ConfigKey;
  throw new CliError(`unknown config key '${printable(text)}' (known: ${CONFIG_KEYS.join(', ')})`);
}

/**
 * Values are checked when set, so a typo fails now rather than at the next deploy. `url` takes
 * the Solana CLI's monikers and is kept expanded, as `solana config set --url devnet` keeps it;
 * `keypair` is kept as an absolute path (`~` expanded).
 */
export function parseConfigValue(key: ConfigKey, value: string, homeDir: string): string {
  switch (key) {
    case 'url':
      return parseHttpUrl(expandRpcMoniker(value.trim()), 'RPC URL');
    case 'gateway':
      return parseHttpUrl(value.trim(), 'gateway URL');
    case 'keypair':
      if (value.trim() === '') throw new CliError('bad keypair path: it is empty');
      return expandHome(value.trim(), homeDir);
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

/** `(from TAPE_RPC_URL)`, `(default)`: where `tape config get` found a value. */
export function originText(setting: ResolvedSetting): string {
  return setting.source === 'default' ? 'default' : `from ${setting.origin}`;
}
