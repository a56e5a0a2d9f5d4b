import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** What tape takes from the Solana CLI's config.yml (`solana config set --url … --keypair …`). */
export interface SolanaCliSettings {
  /** `json_rpc_url`: the cluster the Solana CLI talks to. */
  jsonRpcUrl?: string;
  /** `keypair_path`, `~` expanded. */
  keypairPath?: string;
}

/**
 * The Solana CLI's config file: `~/.config/solana/cli/config.yml` (solana-cli-config's
 * CONFIG_FILE). The Solana CLI itself ignores XDG_CONFIG_HOME and has no environment variable
 * for it (only its own `-C, --config <path>` flag), so neither does tape.
 */
export function solanaCliConfigFile(homeDir: string): string {
  return join(homeDir, '.config', 'solana', 'cli', 'config.yml');
}

/**
 * The settings of a Solana CLI config.yml; empty when the file is missing, unreadable, not YAML
 * or names nothing usable: a broken Solana config must not stop tape from working, it only
 * moves on to the next place to look.
 */
export function readSolanaCliConfig(configFile: string, home: string): SolanaCliSettings {
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(configFile, 'utf8'));
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const fields = parsed as Record<string, unknown>;
  const text = (value: unknown) =>
    typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  const keypair = text(fields.keypair_path);
  return {
    jsonRpcUrl: text(fields.json_rpc_url),
    keypairPath: keypair === undefined ? undefined : expandHome(keypair, home),
  };
}

/** `~` and `~/…` as the Solana CLI expands them; a relative path is from the working directory. */
export function expandHome(path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(path);
}
