import { Injectable } from '@nestjs/common';
import { Keypair, PublicKey } from '@solana/web3.js';
import { TapeRecord } from '../../chain/account-layouts';
import { ChainServices } from '../../chain/chain.module';
import { readKeypair } from '../../chain/keypair-file';
import { OnDemandChain } from '../../chain/on-demand-chain.module';
import { addressFromLabel, parseAddress } from '../../chain/tape-label';
import { ChainConfig } from '../../config/chain.config';
import { validateChainConfig } from '../../config/config-loader';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../chain/program-ids';
import { CliError } from '../cli-error';
import { parsePublicKey } from '../input/key-parser';
import { printable } from '../input/size-parser';
import { GatewayClient } from '../deploy/gateway-client';
import { Printer } from '../output/printer';
import { withChainWatchdog } from './chain-watchdog';
import { CliConfigStore } from './cli-config-store';
import { CliEnvironment } from './cli-environment';
import { CliSettings, ResolvedSetting } from './cli-settings';
import { parseSiteDomain, SiteUrls, siteUrl, siteUrls } from './site-url';
import { locateWallet, WalletLocation } from './wallet-location';

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

export interface LoadedTape {
  address: PublicKey;
  record: TapeRecord;
}

/** What `start` resolves from a command's global options. */
interface Invocation {
  options: GlobalOptions;
  settings: CliSettings;
  rpcUrl: string;
  rpcUrlSetting: ResolvedSetting;
  computeUnitPrice?: number;
}

/**
 * Everything one command invocation needs, resolved from its global options, the environment
 * and the config directory. One per process (a provider of CliModule): nest-commander builds it
 * before it parses the command line, so the command hands it its options with `start` at the
 * beginning of `run()`. Everything else is lazy: `tape config get` never opens an RPC
 * connection, and a missing wallet is only an error for commands that sign.
 */
@Injectable()
export class TapeSession {
  private invocation?: Invocation;
  private chainServices?: ChainServices;
  private walletKeypair?: Keypair;
  private walletLocation?: WalletLocation;

  constructor(
    readonly store: CliConfigStore,
    private readonly env: CliEnvironment,
    private readonly onDemandChain: OnDemandChain,
    /** Where a one-line note for a human goes (stderr): which fallback wallet signs. */
    private readonly printer: Printer,
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
    // Nothing resolved for other options is kept (OnDemandChain refuses a second chain).
    this.chainServices = this.walletKeypair = this.walletLocation = undefined;
    return this;
  }

  private get started(): Invocation {
    if (!this.invocation) throw new Error('TapeSession: start(options) was not called');
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

  /** The chain services for `chainConfig()`, connected on first use (one Connection per command). */
  get chain(): ChainServices {
    if (!this.chainServices) {
      const url = this.started.rpcUrlSetting;
      // A fallback is named once, like the Solana CLI's keypair: the chain is not the one asked for.
      if (url.source === 'solana-cli') {
        this.printer.note(`using the Solana CLI's RPC URL ${this.rpcUrl} (${url.origin})`);
      }
      this.chainServices = this.onDemandChain.connect(this.chainConfig());
    }
    return this.chainServices;
  }

  /** TAPE_GATEWAY > config gateway > http://127.0.0.1:8080. */
  get gatewayUrl(): string {
    const gateway = this.settings.gatewayUrl();
    return parseHttpUrl(gateway.value, settingLabel('gateway URL', gateway));
  }

  gateway(): GatewayClient {
    return new GatewayClient(this.gatewayUrl);
  }

  /**
   * The path `tape keygen` writes: `-k`, else the config key `keypair`, else tape's own
   * `id.json` (never a Solana CLI file).
   */
  get keypairPath(): string {
    return this.options.keypair ?? this.store.get('keypair') ?? this.store.defaultKeypairPath;
  }

  /**
   * Where the signing wallet is read from: `-k`, else `id.json` in the config directory, else
   * the Solana CLI's keypair (src/cli/session/wallet-location.ts).
   */
  get walletFile(): WalletLocation {
    this.walletLocation ??= locateWallet(
      this.options.keypair,
      this.store.defaultKeypairPath,
      this.env,
      this.options.keypair === undefined ? this.store.get('keypair') : undefined,
    );
    return this.walletLocation;
  }

  /** The signing wallet; says on stderr, once, when it is the Solana CLI's keypair. */
  wallet(): Keypair {
    if (this.walletKeypair) return this.walletKeypair;
    const location = this.walletFile;
    try {
      this.walletKeypair = readKeypair(location.path);
      if (location.note) this.printer.note(location.note);
    } catch (err) {
      const message = (err as Error).message;
      if (!this.options.keypair && message.startsWith('no keypair at')) {
        throw new CliError(`${message} (create one: tape keygen)`);
      }
      throw new CliError(message);
    }
    return this.walletKeypair;
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

  async loadTape(): Promise<LoadedTape> {
    const address = this.tapeAddress();
    const record = await this.chain.reader.getTape(address);
    if (!record) {
      throw new CliError(`no tape ${address.toBase58()} on ${this.rpcUrl}`);
    }
    return { address, record };
  }

  /**
   * The key that writes to a tape: its own keypair from the config directory when we have it,
   * else the wallet when the wallet is the tape's authority or delegate. Checked here, before
   * anything is signed, so a wrong key is one clear line rather than a failed transaction.
   */
  tapeSigner(tape: LoadedTape, authorityOnly = false): Keypair {
    const saved = this.store.readTapeKeypair(tape.address.toBase58());
    if (saved && saved.publicKey.equals(tape.record.authority)) return saved;
    const wallet = this.wallet();
    if (wallet.publicKey.equals(tape.record.authority)) return wallet;
    if (!authorityOnly && tape.record.delegate && wallet.publicKey.equals(tape.record.delegate)) {
      return wallet;
    }
    throw new CliError(
      unauthorizedExplanation(wallet.publicKey, tape.address, this.store.dir, authorityOnly),
    );
  }

  /** Work that sends transactions, failing fast (with the URL) if the RPC goes away meanwhile. */
  guarded<T>(work: Promise<T>): Promise<T> {
    return withChainWatchdog(() => this.chain.rpc.ping(), work);
  }

  async currentEpoch(): Promise<number> {
    return this.chain.reader.currentEpoch();
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

export function unauthorizedExplanation(
  signer: PublicKey,
  tape: PublicKey,
  configDir: string,
  authorityOnly = false,
): string {
  const who = authorityOnly ? "the tape's keypair" : "the tape's keypair or its delegate";
  return (
    `unauthorized signer: ${signer.toBase58()} is not ${who} for tape ${tape.toBase58()} ` +
    `(the tape keypair is saved as ${configDir}/tapes/<tape address>.json where the tape was created; pass it with -k)`
  );
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
