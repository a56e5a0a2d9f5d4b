import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const DEFAULT_RPC_URL = 'http://127.0.0.1:8899';
export const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8080';
export const DEFAULT_SITE_DOMAIN = 'localhost:8080';

/**
 * The process environment as the CLI reads it (ARCHITECTURE.md, "Interface contract"). A class
 * so tests can build one from a plain object instead of mutating process.env.
 */
export class CliEnvironment {
  constructor(private readonly env: Record<string, string | undefined> = process.env) {}

  /** `TAPE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/tape`, else `~/.config/tape`. */
  get configDir(): string {
    const explicit = this.value('TAPE_CONFIG_DIR');
    if (explicit) return resolve(explicit);
    const xdg = this.value('XDG_CONFIG_HOME');
    return xdg ? resolve(xdg, 'tape') : join(this.homeDir, '.config', 'tape');
  }

  /** `HOME`, else the account's home directory. */
  get homeDir(): string {
    return this.value('HOME') ?? homedir();
  }

  /**
   * The Solana CLI's config directory, `~/.config/solana` (the Solana CLI itself ignores
   * XDG_CONFIG_HOME), where `cli/config.yml` names its keypair.
   */
  get solanaConfigDir(): string {
    return join(this.homeDir, '.config', 'solana');
  }

  get rpcUrl(): string | undefined {
    return this.value('TAPE_RPC_URL');
  }

  /** `TAPE_PROGRAM_ID`: the tape program's id on the chain (as the gateway reads it). */
  get programId(): string | undefined {
    return this.value('TAPE_PROGRAM_ID');
  }

  get gatewayUrl(): string | undefined {
    return this.value('TAPE_GATEWAY');
  }

  get siteDomain(): string | undefined {
    return this.value('TAPE_SITE_DOMAIN');
  }

  /** Uploads in flight at once during a deploy (`TAPE_UPLOAD_CONCURRENCY`). */
  get uploadConcurrency(): string | undefined {
    return this.value('TAPE_UPLOAD_CONCURRENCY');
  }

  /** The longest one upload waits on a busy gateway (`TAPE_UPLOAD_MAX_WAIT`, a duration). */
  get uploadMaxWait(): string | undefined {
    return this.value('TAPE_UPLOAD_MAX_WAIT');
  }

  private value(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  }
}
