import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../chain/program-ids';
import { addressFromLabel, parseAddress } from '../../chain/tape-label';
import { ChainConfig } from '../../config/chain.config';
import { validateChainConfig } from '../../config/config-loader';
import { CliError } from '../cli-error';
import { parsePublicKey } from '../input/key-parser';
import { printable } from '../input/size-parser';
import { CliConfigStore } from './cli-config-store';
import { CliEnvironment } from './cli-environment';
import { CliSettings, ResolvedSetting } from './cli-settings';
import { parseSiteDomain, SiteUrls, siteUrl, siteUrls } from './site-url';

/** Options every `tape` command takes (src/cli/commands/tape-command.ts). */
export interface GlobalOptions {
  keypair?: string;
  url?: string;
  tape?: string;
  json?: boolean;
  /** `--program-id`: the tape program on this chain. */
  programId?: string;
  /** `--with-compute-unit-price`: micro-lamports per compute unit, as typed. */
  withComputeUnitPrice?: string;
}

/** What `start` resolves from a command's global options. */
export interface Invocation {
  options: GlobalOptions;
  settings: CliSettings;
  rpcUrl: string;
  rpcUrlSetting: ResolvedSetting;
  computeUnitPrice?: number;
}

/**
 * What one command invocation acts on, resolved from its global options, the environment and
 * the config directory: the chain (RPC URL, program id, priority fee), the gateway, the site
 * domain and the tape. One per process (a provider of CliModule): nest-commander builds it
 * before it parses the command line, so the command hands it its options with `start` at the
 * beginning of `run()`. The signers are CliSigners; the clients of the chain and the gateway
 * are CliChain and CliGateway, built from this target on first use.
 */
@Injectable()
export class CliTarget {
  private invocation?: Invocation;

  constructor(
    readonly store: CliConfigStore,
    private readonly env: CliEnvironment,
  ) {}

  /** Takes this invocation's options; a bad `-u` or compute-unit price fails here. */
  start(options: GlobalOptions): this {
    const settings = new CliSettings(this.store, this.env, {
      url: options.url,
      keypair: options.keypair,
      tape: options.tape,
      programId: options.programId,
    });
    // -u > TAPE_RPC_URL > config url > the Solana CLI's json_rpc_url > localhost; monikers too:
    // localhost, devnet, testnet, mainnet-beta (l, d, t, m).
    const rpcUrlSetting = settings.rpcUrl();
    const rpcUrl = parseHttpUrl(rpcUrlSetting.value, settingLabel('RPC URL', rpcUrlSetting));
    const computeUnitPrice =
      options.withComputeUnitPrice === undefined
        ? undefined
        : parseComputeUnitPrice(options.withComputeUnitPrice);
    this.invocation = { options, settings, rpcUrl, rpcUrlSetting, computeUnitPrice };
    return this;
  }

  /** This invocation; a new object for each `start`, so what is resolved from it can be kept per invocation. */
  get started(): Invocation {
    if (!this.invocation) throw new Error('CliTarget: start(options) was not called');
    return this.invocation;
  }

  get options(): GlobalOptions {
    return this.started.options;
  }

  get rpcUrl(): string {
    return this.started.rpcUrl;
  }

  /** Every setting of this invocation with where it came from (`tape config get`). */
  get settings(): CliSettings {
    return this.started.settings;
  }

  /** Priority fee in micro-lamports per compute unit (`--with-compute-unit-price`); none by default. */
  get computeUnitPrice(): number | undefined {
    return this.started.computeUnitPrice;
  }

  get json(): boolean {
    return this.options.json === true;
  }

  /**
   * The program id asked for: `--program-id`, else `TAPE_PROGRAM_ID`, else the config key
   * `program_id`; undefined when none is set.
   */
  explicitProgramId(): PublicKey | undefined {
    const [text, from] =
      this.options.programId !== undefined
        ? [this.options.programId, '--program-id']
        : this.env.programId !== undefined
          ? [this.env.programId, 'TAPE_PROGRAM_ID']
          : [this.store.get('program_id'), `program_id in ${this.store.dir}/config.json`];
    return text === undefined ? undefined : parsePublicKey(text, `program id (${from})`);
  }

  /** The tape program this invocation uses: the one asked for, else the local network's. */
  get programId(): PublicKey {
    return this.explicitProgramId() ?? DEFAULT_TAPE_PROGRAM_ID;
  }

  /**
   * The chain this invocation talks to: `-u` (or TAPE_RPC_URL), its program, its priority fee,
   * validated as the gateway's `chain.*`.
   */
  chainConfig(): ChainConfig {
    return validateChainConfig({
      rpc_url: this.rpcUrl,
      program_id: this.programId.toBase58(),
      compute_unit_price: this.computeUnitPrice,
    });
  }

  /** TAPE_GATEWAY > config gateway > http://127.0.0.1:8080. */
  get gatewayUrl(): string {
    const gateway = this.settings.gatewayUrl();
    return parseHttpUrl(gateway.value, settingLabel('gateway URL', gateway));
  }

  /** `--tape`, else the active tape of the config directory. */
  tapeAddress(): PublicKey {
    const explicit = this.options.tape;
    if (explicit !== undefined) {
      // The address, or its label (what the site's hostname and the S3 bucket are called).
      const parsed = parseAddress(explicit.trim()) ?? addressFromLabel(explicit.trim());
      if (!parsed) throw new CliError(`bad tape address '${printable(explicit)}'`);
      return new PublicKey(parsed);
    }
    const active = this.store.get('active_tape');
    if (!active) {
      throw new CliError(
        'no active tape (create one: tape create --capacity <size> --duration <time>, or pass --tape <address>)',
      );
    }
    const parsed = parseAddress(active);
    if (!parsed) {
      throw new CliError(`the active tape in ${this.store.dir}/config.json is not an address`);
    }
    return new PublicKey(parsed);
  }

  siteDomain(): string {
    return parseSiteDomain(this.settings.siteDomain().value);
  }

  siteUrl(label: string): string {
    return siteUrl(label, this.siteDomain());
  }

  /** A tape's site URLs at the gateway this command uses (site-url.ts, `siteUrls`). */
  siteUrls(label: string, tape: string): SiteUrls {
    const domain = this.settings.siteDomain();
    const configured = domain.source === 'default' ? undefined : parseSiteDomain(domain.value);
    return siteUrls(label, tape, this.gatewayUrl, configured);
  }
}

/** Micro-lamports per compute unit: a whole number (Solana's SetComputeUnitPrice is a u64). */
export function parseComputeUnitPrice(text: string): number {
  const trimmed = String(text).trim();
  if (!/^\d{1,15}$/.test(trimmed)) {
    throw new CliError(
      `bad compute-unit price '${printable(text)}': expected a whole number of micro-lamports per compute unit`,
    );
  }
  return Number(trimmed);
}

/** `RPC URL (TAPE_RPC_URL)`: what a bad value is called, with where it came from. */
function settingLabel(what: string, setting: ResolvedSetting): string {
  return setting.source === 'flag' || setting.source === 'default'
    ? what
    : `${what} (${setting.origin})`;
}

export function parseHttpUrl(text: string, what: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`bad ${what} '${printable(text)}': expected http://host:port`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`bad ${what} '${printable(text)}': expected http:// or https://`);
  }
  return text.replace(/\/+$/, '');
}
