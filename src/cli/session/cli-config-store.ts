import { Injectable } from '@nestjs/common';
import { Keypair } from '@solana/web3.js';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readKeypair, writeKeypair } from '../../chain/keypair-file';
import { CliError } from '../cli-error';
import { CliEnvironment } from './cli-environment';
import { makeDirectory } from '../../config/directories';

/** Keys `tape config set|get` accepts, and how each value is checked. */
export const CONFIG_KEYS = [
  'url',
  'gateway',
  'keypair',
  'site_domain',
  'active_tape',
  'program_id',
] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

export type CliConfigValues = Partial<Record<ConfigKey, string>>;

/**
 * The CLI's config directory: `id.json` (the default wallet keypair), `config.json` (settings and
 * the active tape) and `tapes/<tape address>.json` (each tape's own keypair, the only key that
 * can write to it). Files are written atomically with owner-only permissions.
 */
@Injectable()
export class CliConfigStore {
  constructor(private readonly env: CliEnvironment) {}

  get dir(): string {
    return this.env.configDir;
  }

  get defaultKeypairPath(): string {
    return join(this.dir, 'id.json');
  }

  tapeKeypairPath(tapeAddress: string): string {
    return join(this.dir, 'tapes', `${tapeAddress}.json`);
  }

  readTapeKeypair(tapeAddress: string): Keypair | null {
    try {
      return readKeypair(this.tapeKeypairPath(tapeAddress));
    } catch (err) {
      if ((err as Error).message.startsWith('no keypair at')) return null;
      throw err;
    }
  }

  saveTapeKeypair(tapeAddress: string, keypair: Keypair): string {
    const path = this.tapeKeypairPath(tapeAddress);
    writeKeypair(path, keypair);
    return path;
  }

  read(): CliConfigValues {
    const path = this.configPath;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new CliError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? ''}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new CliError(`${path} is not valid JSON (fix or delete it)`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new CliError(`${path} must hold a JSON object (fix or delete it)`);
    }
    const out: CliConfigValues = {};
    for (const key of CONFIG_KEYS) {
      const value = (parsed as Record<string, unknown>)[key];
      if (typeof value === 'string') out[key] = value;
    }
    return out;
  }

  get(key: ConfigKey): string | undefined {
    return this.read()[key];
  }

  set(key: ConfigKey, value: string | undefined): void {
    const current = this.read();
    if (value === undefined) delete current[key];
    else current[key] = value;
    makeDirectory(this.dir, 0o700);
    const tmp = `${this.configPath}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(current, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.configPath);
  }

  get configPath(): string {
    return join(this.dir, 'config.json');
  }
}
