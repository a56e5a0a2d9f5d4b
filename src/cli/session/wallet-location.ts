import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CliEnvironment } from './cli-environment';
import { readSolanaCliConfig } from './solana-cli-config';

/** Where the signing wallet comes from, in the order the CLI looks. */
export type WalletSource = 'option' | 'config' | 'tape' | 'solana-cli-config' | 'solana-default';

export interface WalletLocation {
  path: string;
  source: WalletSource;
  /**
   * One line for stderr when the wallet is a fallback (the Solana CLI's keypair), saying which
   * file signs and why; undefined when it is the one asked for or tape's own.
   */
  note?: string;
}

/**
 * The wallet keypair of a command: `-k`, else the config key `keypair` (`tape config set
 * keypair <path>`), else tape's own `<config dir>/id.json`, else the
 * Solana CLI's configured keypair (`keypair_path` in `~/.config/solana/cli/config.yml`), else
 * the Solana CLI's default `~/.config/solana/id.json`, so someone who already uses Solana signs
 * with the wallet they know. When none exists the answer is tape's own path, for the
 * "no keypair at …" error and for `tape keygen`.
 */
export function locateWallet(
  explicit: string | undefined,
  tapeDefault: string,
  env: CliEnvironment,
  fromConfig?: string,
): WalletLocation {
  if (explicit !== undefined) return { path: explicit, source: 'option' };
  if (fromConfig !== undefined) return { path: fromConfig, source: 'config' };
  if (existsSync(tapeDefault)) return { path: tapeDefault, source: 'tape' };
  const solanaDir = env.solanaConfigDir;
  const configFile = join(solanaDir, 'cli', 'config.yml');
  const configured = configuredKeypairPath(configFile, env.homeDir);
  if (configured && existsSync(configured)) {
    return {
      path: configured,
      source: 'solana-cli-config',
      note: `using the Solana CLI's keypair ${configured} (keypair_path in ${configFile}; ${tapeDefault} does not exist)`,
    };
  }
  const solanaDefault = join(solanaDir, 'id.json');
  if (existsSync(solanaDefault)) {
    return {
      path: solanaDefault,
      source: 'solana-default',
      note: `using the Solana CLI's keypair ${solanaDefault} (${tapeDefault} does not exist)`,
    };
  }
  return { path: tapeDefault, source: 'tape' };
}

/**
 * `keypair_path` of the Solana CLI's config.yml, `~` expanded; undefined when the file is
 * missing, unreadable or names no path (then the next fallback applies: a broken Solana config
 * must not stop tape from working).
 */
export function configuredKeypairPath(configFile: string, home: string): string | undefined {
  return readSolanaCliConfig(configFile, home).keypairPath;
}
