import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CliEnvironment } from './cli-environment';

/** Where the signing wallet comes from, in the order the CLI looks. */
export type WalletSource = 'option' | 'tape' | 'solana-cli-config' | 'solana-default';

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
 * The wallet keypair of a command: `-k`, else tape's own `<config dir>/id.json`, else the
 * Solana CLI's configured keypair (`keypair_path` in `~/.config/solana/cli/config.yml`), else
 * the Solana CLI's default `~/.config/solana/id.json`, so someone who already uses Solana signs
 * with the wallet they know. When none exists the answer is tape's own path, for the
 * "no keypair at …" error and for `tape keygen`.
 */
export function locateWallet(
  explicit: string | undefined,
  tapeDefault: string,
  env: CliEnvironment,
): WalletLocation {
  if (explicit !== undefined) return { path: explicit, source: 'option' };
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
  let text: string;
  try {
    text = readFileSync(configFile, 'utf8');
  } catch {
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const value = (parsed as Record<string, unknown>).keypair_path;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const path = value.trim();
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  // The Solana CLI opens a relative path from the working directory; so does this.
  return isAbsolute(path) ? path : resolve(path);
}
