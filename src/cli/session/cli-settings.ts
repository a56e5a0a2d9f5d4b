import { existsSync } from 'node:fs';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../chain/program-ids';
import { CliConfigStore, ConfigKey } from './cli-config-store';
import {
  CliEnvironment,
  DEFAULT_GATEWAY_URL,
  DEFAULT_RPC_URL,
  DEFAULT_SITE_DOMAIN,
} from './cli-environment';
import { expandRpcMoniker } from './rpc-url';
import { readSolanaCliConfig, solanaCliConfigFile } from './solana-cli-config';
import { locateWallet, WalletSource } from './wallet-location';

/** Where a setting's value came from, in the order the CLI looks (docs/cli.md, "Settings"). */
export type SettingSource = 'flag' | 'env' | 'config' | 'solana-cli' | 'default';

export interface ResolvedSetting {
  value: string;
  source: SettingSource;
  /** The flag, variable or file that gave it: `-u`, `TAPE_RPC_URL`, a path; `built-in`. */
  origin: string;
}

/** The global options that override settings (src/cli/commands/tape-command.ts). */
export interface SettingFlags {
  url?: string;
  keypair?: string;
  tape?: string;
  programId?: string;
}

/**
 * Resolves each setting: flag > environment > tape's config.json > the Solana CLI's config.yml
 * (URL and keypair only) > built-in default. One place decides, so `tape config get` shows the
 * value every other command uses, and where it came from.
 */
export class CliSettings {
  constructor(
    private readonly store: CliConfigStore,
    private readonly env: CliEnvironment,
    private readonly flags: SettingFlags = {},
  ) {}

  /** The RPC URL, monikers expanded (validated by the caller). */
  rpcUrl(): ResolvedSetting {
    const r = this.first([
      ['flag', '-u', () => this.flags.url],
      ['env', 'TAPE_RPC_URL', () => this.env.rpcUrl],
      ['config', this.configFile, () => this.stored('url')],
      ['solana-cli', `json_rpc_url in ${this.solanaFile}`, () => this.solana().jsonRpcUrl],
      ['default', 'built-in', () => DEFAULT_RPC_URL],
    ]);
    return { ...r, value: expandRpcMoniker(r.value) };
  }

  gatewayUrl(): ResolvedSetting {
    return this.first([
      ['env', 'TAPE_GATEWAY', () => this.env.gatewayUrl],
      ['config', this.configFile, () => this.stored('gateway')],
      ['default', 'built-in', () => DEFAULT_GATEWAY_URL],
    ]);
  }

  siteDomain(): ResolvedSetting {
    return this.first([
      ['env', 'TAPE_SITE_DOMAIN', () => this.env.siteDomain],
      ['config', this.configFile, () => this.stored('site_domain')],
      ['default', 'built-in', () => DEFAULT_SITE_DOMAIN],
    ]);
  }

  programId(): ResolvedSetting {
    return this.first([
      ['flag', '--program-id', () => this.flags.programId],
      ['env', 'TAPE_PROGRAM_ID', () => this.env.programId],
      ['config', this.configFile, () => this.stored('program_id')],
      ['default', 'built-in', () => DEFAULT_TAPE_PROGRAM_ID.toBase58()],
    ]);
  }

  /** Where the wallet is read from (src/cli/session/wallet-location.ts has the order). */
  keypair(): ResolvedSetting & { note?: string; exists: boolean } {
    const found = locateWallet(
      this.flags.keypair,
      this.store.defaultKeypairPath,
      this.env,
      this.flags.keypair === undefined ? this.stored('keypair') : undefined,
    );
    const [source, origin] = WALLET_ORIGINS[found.source](this.configFile, this.solanaFile);
    return { value: found.path, source, origin, note: found.note, exists: existsSync(found.path) };
  }

  activeTape(): ResolvedSetting | undefined {
    const value = this.flags.tape ?? this.stored('active_tape');
    if (value === undefined) return undefined;
    return this.flags.tape !== undefined
      ? { value, source: 'flag', origin: '--tape' }
      : { value, source: 'config', origin: this.configFile };
  }

  /** Any key of `tape config get`; undefined only for an active tape that is not set. */
  resolve(key: ConfigKey): ResolvedSetting | undefined {
    switch (key) {
      case 'url':
        return this.rpcUrl();
      case 'gateway':
        return this.gatewayUrl();
      case 'keypair':
        return this.keypair();
      case 'site_domain':
        return this.siteDomain();
      case 'active_tape':
        return this.activeTape();
      case 'program_id':
        return this.programId();
    }
  }

  /** The first candidate with a value; later ones are not even read (a broken file that is overridden does not matter). */
  private first(candidates: [SettingSource, string, () => string | undefined][]): ResolvedSetting {
    for (const [source, origin, read] of candidates) {
      const value = read();
      if (value !== undefined) return { value, source, origin };
    }
    throw new Error('CliSettings: no default');
  }

  private storedValues?: ReturnType<CliConfigStore['read']>;
  private stored(key: ConfigKey): string | undefined {
    this.storedValues ??= this.store.read();
    return this.storedValues[key];
  }

  private solanaSettings?: ReturnType<typeof readSolanaCliConfig>;
  private solana() {
    this.solanaSettings ??= readSolanaCliConfig(this.solanaFile, this.env.homeDir);
    return this.solanaSettings;
  }

  private get configFile(): string {
    return this.store.configPath;
  }

  private get solanaFile(): string {
    return solanaCliConfigFile(this.env.homeDir);
  }
}

const WALLET_ORIGINS: Record<
  WalletSource,
  (configFile: string, solanaFile: string) => [SettingSource, string]
> = {
  option: () => ['flag', '-k'],
  config: (configFile) => ['config', configFile],
  tape: () => ['default', 'built-in'],
  'solana-cli-config': (_c, solanaFile) => ['solana-cli', `keypair_path in ${solanaFile}`],
  'solana-default': () => ['solana-cli', "the Solana CLI's default keypair"],
};
